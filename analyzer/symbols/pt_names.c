/* SPDX-License-Identifier: MIT */
/* Demangled names made to fit a column (pt_names.h has the steps). Names
 * are scanned as __cxa_demangle writes them; nothing here needs them to be
 * well formed: a name the steps do not recognize is cut at its start. */
#include "pt_names.h"
#include "pt_text.h"

#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 1024

typedef struct name_buf {
	char s[NAME_MAX_LEN];
	size_t n;
} name_buf;

/* Widths are columns of the escaped name (pt_text.h). */
static size_t cols(const char *s)
{
	return pt_text_cols(s);
}

/* s[a, b) becomes r. */
static void replace(name_buf *b, size_t from, size_t to, const char *r)
{
	size_t rl = strlen(r);
	if (b->n - (to - from) + rl >= sizeof b->s)
		return;
	memmove(b->s + from + rl, b->s + to, b->n - to + 1);
	memcpy(b->s + from, r, rl);
	b->n = b->n - (to - from) + rl;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Length of the operator token after "operator" at s[i] (0 if none):
 * the '<' and '>' of operator<, operator<<=, operator-> are no brackets. */
static size_t operator_token(const char *s, size_t i)
{
	static const char *const ops[] = {"<=>", "<<=", ">>=", "->*", "()", "[]", "<<",
	                                  ">>",  "<=",  ">=",  "->",  "<",  ">"};
	if (strncmp(s + i, "operator", 8) || (i && is_ident(s[i - 1])))
		return 0;
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strncmp(s + i + 8, ops[k], strlen(ops[k])))
			return 8 + strlen(ops[k]);
	return 8;
}

/* Index of the '(' that opens the name's parameter list, or -1: the group
 * that closes at the last ')', when only qualifiers follow it. */
static long params_open(const name_buf *b)
{
	const char *close = strrchr(b->s, ')');
	if (!close || strpbrk(close, "<>"))
		return -1;
	int depth = 0;
	for (long i = close - b->s; i >= 0; i--) {
		if (b->s[i] == ')')
			depth++;
		else if (b->s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

/* Step 2: each outermost <...> becomes <..>; {lambda(...)#N} loses its
 * parameters. Operator tokens are skipped whole. */
static void collapse_templates(name_buf *b)
{
	for (size_t i = 0; i < b->n; i++) {
		size_t op = operator_token(b->s, i);
		if (op) {
			i += op - 1;
			continue;
		}
		char open = b->s[i];
		size_t from = i + 1;
		if (!strncmp(b->s + i, "{lambda(", 8)) {
			open = '(';
			from = i + 8;
		} else if (open != '<') {
			continue;
		}
		char close = open == '<' ? '>' : ')';
		/* from..j: inside the brackets; j: the matching close */
		size_t j = from;
		int depth = 1;
		for (; j < b->n; j++) {
			size_t op2 = operator_token(b->s, j);
			if (op2) {
				j += op2 - 1;
				continue;
			}
			depth += b->s[j] == open ? 1 : b->s[j] == close ? -1 : 0;
			if (!depth)
				break;
		}
		if (depth)
			return; /* unbalanced: leave the rest */
		if (j - from > 2 || strncmp(b->s + from, "..", j - from)) {
			replace(b, from, j, "..");
			j = from + 2;
		}
		i = j; /* at the close */
	}
}

/* Where the qualified name starts, past a leading return type: after the
 * last space outside brackets before the first "operator" (whose own
 * spaces, as in "operator new", belong to it) and before the parameter
 * list (the spaces of " const" after it are the method's). */
static size_t name_start(const name_buf *b)
{
	size_t start = 0;
	int depth = 0;
	long params = params_open(b);
	size_t end = params > 0 ? (size_t)params : b->n;
	for (size_t i = 0; i < end; i++) {
		char c = b->s[i];
		if (operator_token(b->s, i) && !depth)
			break;
		if (c == '(' || c == '<' || c == '{' || c == '[')
			depth++;
		else if ((c == ')' || c == '>' || c == '}' || c == ']') && depth)
			depth--;
		else if (c == ' ' && !depth)
			start = i + 1;
	}
	return start;
}

/* Step 4: the first "::" outside brackets after which the rest fits in
 * width - 2 (with ".." before it); 0 if none. */
static size_t scope_cut(const name_buf *b, size_t width)
{
	int depth = 0;
	for (size_t i = 0; i + 1 < b->n; i++) {
		char c = b->s[i];
		size_t op = operator_token(b->s, i);
		if (op && !depth) {
			i += op - 1;
			continue;
		}
		if (c == '(' || c == '<' || c == '{' || c == '[')
			depth++;
		else if ((c == ')' || c == '>' || c == '}' || c == ']') && depth)
			depth--;
		else if (c == ':' && b->s[i + 1] == ':' && !depth &&
		         cols(b->s + i + 2) + 2 <= width)
			return i + 2;
	}
	return 0;
}

/* The qualifiers of a method that follow its parameter list (from `tail`,
 * just past the ')'): " const", " volatile", " &", " &&", " noexcept",
 * written into q (qlen bytes). What else follows (" [clone .cold]") is
 * left out. They are what tells the const and non-const overloads of a
 * method apart once both parameter lists are "(..)". */
static void qualifiers(const char *tail, char *q, size_t qlen)
{
	static const char *const kept[] = {"const", "volatile", "&&", "&", "noexcept"};
	size_t n = 0;
	q[0] = 0;
	for (const char *p = tail; *p;) {
		while (*p == ' ')
			p++;
		size_t k = 0, len = 0;
		for (; k < sizeof kept / sizeof *kept; k++) {
			len = strlen(kept[k]);
			if (!strncmp(p, kept[k], len) && (p[len] == ' ' || p[len] == 0))
				break;
		}
		if (k == sizeof kept / sizeof *kept || n + len + 2 > qlen)
			return;
		n += (size_t)snprintf(q + n, qlen - n, " %s", kept[k]);
		p += len;
	}
}

size_t pt_name_fit(char *out, size_t outlen, const char *name, size_t width)
{
	if (!outlen)
		return 0;
	name_buf b;
	/* escaped first: the steps below work on what is shown, and every
	 * cut falls between two of its units */
	b.n = pt_text_escape(b.s, sizeof b.s, name);
	if (width < 4)
		width = 4;
	if (cols(b.s) > width) {
		long p = params_open(&b);
		if (p > 0) {
			char q[64], r[72];
			qualifiers(strrchr(b.s, ')') + 1, q, sizeof q);
			snprintf(r, sizeof r, "(..)%s", q);
			if (cols(r) < cols(b.s + p))
				replace(&b, (size_t)p, b.n, r);
		}
	}
	if (cols(b.s) > width)
		collapse_templates(&b);
	if (cols(b.s) > width) {
		const char *anon = "(anonymous namespace)";
		for (char *a = strstr(b.s, anon); a; a = strstr(a + 6, anon))
			replace(&b, (size_t)(a - b.s), (size_t)(a - b.s) + strlen(anon), "(anon)");
		size_t start = name_start(&b);
		if (start)
			replace(&b, 0, start, "");
		/* a lambda's call operator (const unless mutable): the lambda
		 * says it */
		static const char *const calls[] = {"}::operator()(..)", "}::operator()(..) const"};
		for (int k = 0; k < 2; k++) {
			size_t cl = strlen(calls[k]);
			if (b.n > cl && !strcmp(b.s + b.n - cl, calls[k])) {
				replace(&b, b.n - cl + 1, b.n, "(..)");
				break;
			}
		}
	}
	if (cols(b.s) > width) {
		size_t at = scope_cut(&b, width);
		if (!at)
			return pt_text_cut(out, outlen, b.s, width, 1);
		replace(&b, 0, at, "..");
	}
	size_t n = pt_text_prefix(b.s, outlen - 1);
	memcpy(out, b.s, n);
	out[n] = '\0';
	return n;
}
