// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fuzz_dnsmsg.c - libFuzzer target: every dnsmsg.c entry point on any bytes
 *
 * The forwarder reads a query the agent chose and an answer a resolver (or
 * whoever spoofs one) chose, so each entry point runs on the input as a
 * message. Built with ASan and UBSan (make fuzz). Also checks what the
 * forwarder relies on:
 *   - a name it returns is at most DNS_NAME_MAX bytes, lower case, with no
 *     final dot (policy matching and the audit record read it as text)
 *   - an answer holds at most DNS_ADDRS_MAX addresses and DNS_CNAME_DEPTH
 *     CNAMEs, and is never an answer to a question other than its own
 *   - a query dnsmsg_check_query() passes is a standard query with its
 *     question, and the empty answer made from it parses back as a
 *     response to that very question
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* broken() - say which promise the input broke, then crash (libFuzzer saves
 * the input). Never returns. */
static void __attribute__((noreturn)) broken(const char *promise)
{
	fprintf(stderr, "fuzz_dnsmsg: %s\n", promise);
	abort();
}

/* check_name() - @name as the forwarder may use it, or broken() */
static void check_name(const char *name, size_t room)
{
	size_t n = strnlen(name, room);

	if (n == room || n > DNS_NAME_MAX)
		broken("a name is longer than DNS_NAME_MAX or not terminated");
	if (n && name[n - 1] == '.')
		broken("a name ends in a dot");
	for (size_t i = 0; i < n; i++)
		if (isupper((unsigned char)name[i]))
			broken("a name is not lower case");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[600];
	struct dns_question q, back;
	struct dns_answer a;
	int rc, len;

	if (!dnsmsg_question(data, size, &q)) {
		check_name(q.name, sizeof(q.name));
		if (q.end > size)
			broken("a question ends past the message");
		/* Patterns are the user's; the name is the input's. */
		(void)dnsmsg_name_matches("*.example.org", q.name);
		(void)dnsmsg_name_matches(q.name, q.name);
		(void)dnsmsg_name_is_host(q.name);
		(void)dnsmsg_in_zone("forge.lan.test", q.name);
		(void)dnsmsg_in_zone(q.name, "forge.lan.test");
	}
	memset(&a, 0, sizeof(a));
	if (!dnsmsg_answer(data, size, &a)) {
		if (a.n > DNS_ADDRS_MAX || a.n_cname > DNS_CNAME_DEPTH)
			broken("an answer holds more than its bounds");
		for (size_t i = 0; i < a.n_cname; i++)
			check_name(a.cname[i], sizeof(a.cname[i]));
	}
	rc = dnsmsg_check_query(data, size, &q);
	if (rc == 0) {
		check_name(q.name, sizeof(q.name));
		if (size < DNS_HEADER_LEN || (data[2] & 0x80) || (data[2] & 0x78))
			broken("a query passed on is not a standard query");
		len = dnsmsg_empty_answer(data, size, DNS_RCODE_NOERROR, out, sizeof(out));
		if (len > 0) {
			if ((size_t)len > sizeof(out))
				broken("an empty answer is longer than its room");
			if (dnsmsg_question(out, (size_t)len, &back) || strcmp(back.name, q.name) ||
			    back.type != q.type || back.class != q.class)
				broken("the empty answer does not carry the query's question");
			if (!dnsmsg_is_answer_to(&q, dnsmsg_id(data), out, (size_t)len))
				broken("the empty answer is not an answer to its query");
			if (dnsmsg_is_answer_to(&q, (uint16_t)(dnsmsg_id(data) + 1), out,
						(size_t)len))
				broken("an answer with another ID is taken for the query's");
		}
	}
	return 0;
}
