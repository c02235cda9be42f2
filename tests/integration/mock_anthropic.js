// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// mock_anthropic.js - a mock of the Anthropic Messages API, enough for
// `claude -p`: every request is a line of LOG (method, path, and the last
// user text of a /v1/messages request); /v1/messages answers "ANSWER",
// streamed as server-sent events when asked to stream, as the API does.
// Everything else gets an empty JSON object.
//
// Usage: node mock_anthropic.js ADDR PORT LOG ANSWER
'use strict';
const http = require('http');
const fs = require('fs');

const [addr, port, log, answer] = process.argv.slice(2);

function lastUserText(body) {
	const msgs = (body && body.messages) || [];
	for (let i = msgs.length - 1; i >= 0; i--) {
		if (msgs[i].role !== 'user')
			continue;
		const c = msgs[i].content;
		if (typeof c === 'string')
			return c;
		const texts = (c || []).filter((b) => b.type === 'text').map((b) => b.text);
		if (texts.length)
			return texts[texts.length - 1];
	}
	return '';
}

function message(body) {
	return {
		id: 'msg_mock', type: 'message', role: 'assistant', model: body.model || 'mock',
		content: [], stop_reason: null, stop_sequence: null,
		usage: { input_tokens: 1, output_tokens: 1 },
	};
}

function stream(res, body) {
	const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	send('message_start', { type: 'message_start', message: message(body) });
	send('content_block_start', { type: 'content_block_start', index: 0,
				      content_block: { type: 'text', text: '' } });
	send('content_block_delta', { type: 'content_block_delta', index: 0,
				      delta: { type: 'text_delta', text: answer } });
	send('content_block_stop', { type: 'content_block_stop', index: 0 });
	send('message_delta', { type: 'message_delta',
				delta: { stop_reason: 'end_turn', stop_sequence: null },
				usage: { output_tokens: 1 } });
	send('message_stop', { type: 'message_stop' });
	res.end();
}

http.createServer((req, res) => {
	let data = '';
	req.on('data', (chunk) => { data += chunk; });
	req.on('end', () => {
		let body = null;
		try { body = JSON.parse(data); } catch (e) { body = null; }
		const path = req.url.split('?')[0];
		const text = path === '/v1/messages' ? lastUserText(body).replace(/\s+/g, ' ') : '';
		fs.appendFileSync(log, `${req.method} ${path} ${text}\n`);
		if (path !== '/v1/messages' || req.method !== 'POST') {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
			return;
		}
		if (body && body.stream) {
			stream(res, body);
			return;
		}
		const m = message(body || {});
		m.content = [{ type: 'text', text: answer }];
		m.stop_reason = 'end_turn';
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(m));
	});
}).listen(Number(port), addr, () => fs.appendFileSync(log, 'listening\n'));
