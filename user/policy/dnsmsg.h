/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dnsmsg.h - DNS messages as the jail's forwarder reads them (pure)
 *
 * The forwarder (allow-host, docs/DESIGN.md) sees every query the agent
 * sends and every answer before the agent does: it needs the question
 * (which name, which type), the A records an answer gives for that name
 * (following its CNAMEs), the smallest TTL among them, and an empty answer
 * to give AAAA queries (the jail is IPv4 only). Everything here reads
 * bytes an agent or a resolver chose: every length and every compression
 * pointer is checked, and a pointer may only go backwards, so a loop or a
 * read past the end is an error, never a hang or a crash.
 */
#ifndef EBPFJAIL_DNSMSG_H
#define EBPFJAIL_DNSMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_HEADER_LEN 12
#define DNS_NAME_MAX 253   /* a name as text, without the final dot */
#define DNS_TYPE_A 1
#define DNS_TYPE_CNAME 5
#define DNS_TYPE_AAAA 28
#define DNS_TYPE_OPT 41
#define DNS_CLASS_IN 1
#define DNS_TYPE_IXFR 251
#define DNS_TYPE_AXFR 252
#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5
#define DNS_FLAG_QR 0x8000 /* a response */
#define DNS_FLAG_RD 0x0100 /* recursion desired */
#define DNS_FLAG_RA 0x0080 /* recursion available */
/* The most A records of one answer that are taken (a round-robin pool is
 * a few dozen at most; the rest are not allowed, and said so). */
#define DNS_ADDRS_MAX 64
/* The most CNAME records followed from the asked name. */
#define DNS_CNAME_DEPTH 8

struct dns_question {
	uint16_t id;
	uint16_t flags;              /* the header's: QR, opcode, RD... */
	char name[DNS_NAME_MAX + 1]; /* lower case, no final dot; "" the root */
	uint16_t type;
	uint16_t class;
	size_t end;                  /* offset just past the question */
};

/**
 * dnsmsg_question() - the one question of @msg (a query or an answer)
 * Return: 0, or -EINVAL for a message that is not one DNS question (short,
 * not exactly one question, a bad or too long name).
 */
int dnsmsg_question(const uint8_t *msg, size_t len, struct dns_question *q);

struct dns_answer {
	uint32_t addrs[DNS_ADDRS_MAX]; /* network byte order */
	size_t n;
	bool truncated_list;           /* more A records than DNS_ADDRS_MAX */
	uint32_t ttl;                  /* the smallest TTL on the way to them */
	uint8_t rcode;
	/* The names the CNAME records led to from the asked name, in order */
	char cname[DNS_CNAME_DEPTH][DNS_NAME_MAX + 1];
	size_t n_cname;
};

/**
 * dnsmsg_answer() - the A records @msg (a response) gives for its question's
 * name, following CNAME records from it (in the order they come, at most
 * 8 deep); records for other names are ignored (a resolver's extra
 * records must not allow a name nobody asked for)
 * Return: 0 (also for an answer with none: a->n is 0), or -EINVAL for a
 * malformed message or one that is not a response.
 */
int dnsmsg_answer(const uint8_t *msg, size_t len, struct dns_answer *a);

/**
 * dnsmsg_in_zone() - is @name in @asked's zone: @asked itself or below
 * its parent ("git.lan.test" for "forge.lan.test"), or below @asked when
 * its parent is a single label ("forge.lan": "lan" is no one's zone)?
 * Pure text, no Public Suffix List: under "co.uk" a name's zone is wider
 * than its owner's.
 */
bool dnsmsg_in_zone(const char *asked, const char *name);

/**
 * dnsmsg_empty_answer() - the response to @query that has no records and
 * @rcode: DNS_RCODE_NOERROR ("this name has no such address", as the
 * forwarder gives AAAA queries), SERVFAIL, NOTIMP or REFUSED
 * @out: room for @size bytes; the response is the header and the question
 * Return: its length, or -EINVAL (not a query) / -ENOSPC.
 */
int dnsmsg_empty_answer(const uint8_t *query, size_t len, uint8_t rcode, uint8_t *out,
			size_t size);

/**
 * dnsmsg_check_query() - may the forwarder pass @msg from the agent on?
 * Only a standard query (opcode QUERY, one question, no answer or
 * authority records, at most one additional: EDNS's OPT, owned by the root
 * and the message's last bytes). The attack: an
 * UPDATE, passed on to a resolver that takes unsigned updates (a domain
 * controller's "nonsecure and secure"), would write a record under an
 * allowed name pointing anywhere; a zone transfer reads a whole zone.
 * @q: its question
 * Return: 0 (pass it on), a DNS_RCODE_* to answer with at once (NOTIMP for
 * another opcode, REFUSED for AXFR and IXFR), or -EINVAL for a message
 * that is no query at all (drop it).
 */
int dnsmsg_check_query(const uint8_t *msg, size_t len, struct dns_question *q);

/**
 * dnsmsg_build_query() - the query the forwarder asks for @q: a header of
 * its own (ID 0, RD, one question), @q's name, type and class, and with
 * @udp_size > 0 an OPT record of its own (that payload size, DO if
 * @dnssec_ok, no options), nothing of the agent's bytes else. The
 * attack: bytes after the question, EDNS options, header bits and
 * letter case ride along with an allowed name to the host's resolver.
 * @out: room for @size bytes
 * Return: its length, or -EINVAL (a name that is no name) / -ENOSPC.
 */
int dnsmsg_build_query(const struct dns_question *q, uint16_t udp_size, bool dnssec_ok,
		       uint8_t *out, size_t size);

/**
 * dnsmsg_query_edns() - the UDP payload size and DO bit of a checked
 * query's OPT record (dnsmsg_check_query()); 0 and false without one
 */
void dnsmsg_query_edns(const uint8_t *msg, size_t len, const struct dns_question *q,
		       uint16_t *udp_size, bool *dnssec_ok);

/**
 * dnsmsg_is_answer_to() - is @msg the resolver's answer to @q asked with
 * @id: a response, that ID, the same name, type and class? Anything else
 * (late, stray, spoofed, for another name) must allow nothing.
 */
bool dnsmsg_is_answer_to(const struct dns_question *q, uint16_t id, const uint8_t *msg,
			 size_t len);

/** dnsmsg_id() / dnsmsg_set_id() - a message's ID (it has its header) */
uint16_t dnsmsg_id(const uint8_t *msg);
void dnsmsg_set_id(uint8_t *msg, uint16_t id);

/**
 * dnsmsg_name_matches() - does @name (lower case, as dnsmsg_question()
 * gives it) match the allow-host @pattern: the same name, or for
 * "*.example.org" any name under example.org (not example.org itself).
 * Case-insensitive; a final dot on either is ignored.
 */
bool dnsmsg_name_matches(const char *pattern, const char *name);

/**
 * dnsmsg_name_is_host() - is @name (as dnsmsg_question() gives it) a host
 * name: letters, digits, '-' and '_' in dot-separated labels? A label may
 * hold any other byte (a newline, a terminal escape), and the agent
 * chooses the labels under a wildcard.
 */
bool dnsmsg_name_is_host(const char *name);

/**
 * dnsmsg_type_name() - a query type as people write it: "A", "TXT", or
 * "TYPE65280" for one without a name here (RFC 3597's form)
 * @buf: room for DNS_TYPE_NAME_MAX bytes; Return: @buf.
 */
#define DNS_TYPE_NAME_MAX sizeof("TYPE65535")
const char *dnsmsg_type_name(uint16_t type, char buf[DNS_TYPE_NAME_MAX]);

#endif /* EBPFJAIL_DNSMSG_H */
