/* SPDX-License-Identifier: MIT */
/* Demangled C and C++ function names made to fit a table's column. */
#ifndef PT_NAMES_H
#define PT_NAMES_H

#include <stddef.h>

/* Writes name, escaped for a terminal (the text policy of pt_text.h), into
 * out (outlen bytes) in at most `width` columns (width >= 4), shortening in
 * this order until it fits:
 *   1. the parameter list (the parenthesized group that ends the name,
 *      found from the end, so "(anonymous namespace)", "operator()" and
 *      "{lambda(int)#1}" stay) becomes "(..)"; of what follows it, the
 *      method's qualifiers stay (" const", " volatile", " &", " &&",
 *      " noexcept": "get(..) const" and "get(..)" are two overloads), the
 *      rest goes (" [clone .cold]");
 *   2. template arguments become "<..>" (not the '<' of operator<, <<, <=,
 *      <=>, -> ...) and a lambda's parameters "(..)";
 *   3. "(anonymous namespace)" becomes "(anon)", a leading return type
 *      ("void ns::f<..>(..)") goes, and so does a lambda's "::operator()"
 *      with its qualifiers ("f()::{lambda(..)#1}(..)");
 *   4. leading scopes go, whole ("..Class::method(..)"), as few as needed;
 *   5. the start is cut ("..ethod(..)"), never inside an escape or a
 *      UTF-8 character.
 * Returns the length written. */
size_t pt_name_fit(char *out, size_t outlen, const char *name, size_t width);

#endif
