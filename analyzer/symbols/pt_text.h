/* SPDX-License-Identifier: MIT */
/* Strings from a trace as each kind of output writes them.
 *
 * A trace's strings (function, file, thread, program, event and counter
 * names, kernel names, host names, paths) are bytes the traced program
 * chose: any control character, any line break, any byte sequence that is
 * not UTF-8. Every kind of output has one policy for them, applied by the
 * function of that kind below, which every writer of that kind calls:
 *
 *   text (report and analyze tables, dump, CSV cells, .pcf/.row labels):
 *     one line of valid UTF-8 that a terminal displays and never acts on.
 *     Printable characters as they are; C0 controls, DEL, the C1 controls
 *     (U+0080..U+009F), every byte that is not part of valid UTF-8, and the
 *     backslash (so that an escape is never ambiguous) as \xNN, one per
 *     byte. pt_text_put, pt_text_escape, pt_text_fit; pt_csv_str (a quoted
 *     cell), pt_label_put (a .pcf or .row label).
 *   JSON (report --json, the Chrome trace, the HTML report's data): a JSON
 *     string of valid UTF-8 (RFC 8259). '"' and '\' escaped, C0 and C1
 *     controls and DEL as \u00XX, bytes that are not valid UTF-8 replaced
 *     by U+FFFD (written \ufffd), one per maximal invalid part (Unicode's
 *     recommended practice, which the WHATWG decoder and Python's
 *     errors="replace" follow): a strict parser accepts the file, and a
 *     replaced byte is never mistaken for a character (a Latin-1 reading
 *     would turn 0xff into a real "ÿ"). pt_json_str.
 *   protobuf strings (Perfetto): valid UTF-8 with the same U+FFFD
 *     replacement, nothing else changed. pt_utf8_fix.
 *   markup (SVG pictures, the HTML report): the text policy's escapes,
 *     then & < > " ' as entities, so the document always parses (XML
 *     allows no C0 control, not even as a character reference).
 *     pt_xml_str, pt_xml_fit.
 *
 * Widths: text cut to a column's width is cut in its escaped form, whose
 * units are a UTF-8 character (one column) or an escape (\xNN, four): a cut
 * never falls inside either (pt_text_cut). */
#ifndef PT_TEXT_H
#define PT_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Flags of pt_text_put: also the space, as \x20 (a dump's key=value
 * fields, which spaces separate). */
#define PT_TEXT_SPACE 1u

/* s (NULL: "") in the text policy, written to o. */
void pt_text_put(FILE *o, const char *s, unsigned flags);

/* s (NULL: "") in the text policy into out (outlen > 0 bytes, always
 * NUL-terminated, ending at a whole unit when it does not fit). Returns the
 * bytes written, NUL excluded. */
size_t pt_text_escape(char *out, size_t outlen, const char *s);

/* Columns that text escaped by pt_text_escape takes (one per character). */
size_t pt_text_cols(const char *esc);

/* Bytes of the longest start of escaped text that ends at a unit and has
 * at most max bytes. */
size_t pt_text_prefix(const char *esc, size_t max);

/* Escaped text esc in at most `width` columns (width >= 3) into out: as it
 * is when it fits, else cut at a unit with ".." where it was cut: at the
 * start ("..end", keep_end) or at the end ("start.."). Returns the bytes
 * written. */
size_t pt_text_cut(char *out, size_t outlen, const char *esc, size_t width, int keep_end);

/* pt_text_escape, then pt_text_cut. */
size_t pt_text_fit(char *out, size_t outlen, const char *s, size_t width, int keep_end);

/* A CSV cell: s in the text policy, in double quotes (a quote doubled). */
void pt_csv_str(FILE *o, const char *s);

/* A .pcf or .row label: s in the text policy (one line, as Paraver reads a
 * label to the end of its line). */
void pt_label_put(FILE *o, const char *s);

/* A JSON string, quotes included (the JSON policy). */
void pt_json_str(FILE *o, const char *s);

/* Bytes of the longest start of s[0, n) that is valid UTF-8 (n: all). */
size_t pt_utf8_valid(const char *s, size_t n);

/* s[0, n) into out (room for 3 * n + 1 bytes) with what is not valid UTF-8
 * replaced by U+FFFD as in JSON: the protobuf policy. Returns the bytes
 * written (NUL-terminated). */
size_t pt_utf8_fix(char *out, const char *s, size_t n);

/* XML/HTML text or attribute value: the markup policy. */
void pt_xml_str(FILE *o, const char *s);

/* The same, cut to at most `width` columns as pt_text_fit cuts. */
void pt_xml_fit(FILE *o, const char *s, size_t width, int keep_end);

#endif
