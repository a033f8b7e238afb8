/* SPDX-License-Identifier: MIT */
/*
 * symbols_shortname.c - a demangled C++ name as perf shows it by default:
 * without its parameter list, the qualifiers after it, a template
 * function's return type and the compiler's clone suffixes.
 *
 *     double geo::total<double>(std::vector<int> const&)   geo::total<double>
 *     geo::Circle::area() const                            geo::Circle::area
 *     (anonymous namespace)::Scale::operator()(double) const [clone .constprop.0]
 *                                                          (anonymous namespace)::Scale::operator()
 *
 * Names that are not functions (variables, "guard variable for x",
 * "typeinfo for bool (int)") stay as they are, and so do thunks ("virtual
 * thunk to f()") but for a clone suffix: the demangler keeps the parameters
 * of the function a special name nests.
 */
#include <stdbool.h>
#include <string.h>

#include "symbols/symbols_internal.h"

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(s + len - n, tail, n) == 0;
}

/* The length of s without the qualifiers a member function's type ends in. */
static size_t without_qualifiers(const char *s, size_t len)
{
	static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept"};
	bool more = true;

	while (more) {
		more = false;
		for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
			if (ends_with(s, len, quals[i])) {
				len -= strlen(quals[i]);
				more = true;
			}
	}
	return len;
}

/* Where the parameter list ending at s[len - 1] (a ')') opens, or len when unbalanced. */
static size_t params_start(const char *s, size_t len)
{
	int depth = 0;

	for (size_t i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return len;
}

/*
 * How many characters of the operator's name follow "operator" at s, so
 * that its symbols ("<<", "()", "[]") and a space before a conversion type
 * or a template argument list are not read as brackets or separators. The
 * symbol is the longest operator that s starts with: in "+<char>" the '<'
 * opens the template's arguments (the demangler writes a space only after
 * an operator that ends in '<': "operator< <int>").
 */
static size_t operator_name(const char *s, size_t len)
{
	static const char *const ops[] = {
	    "<<=", ">>=", "->*", "<=>", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&",
	    "||",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "^=", "&=", "|=", "->", "<",
	    ">",   "=",   "!",   "+",   "-",  "*",  "/",  "%",  "&",  "|",  "^",  "~",  ",",
	};
	size_t i = 0;

	if (len > 0 && s[0] == ' ')
		return 1; /* "operator new", "operator int": the type or word follows */
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]) && !i; k++)
		if (strlen(ops[k]) <= len && memcmp(s, ops[k], strlen(ops[k])) == 0)
			i = strlen(ops[k]);
	if (i > 0 && i + 1 < len && s[i] == ' ' && s[i + 1] == '<')
		i++; /* "operator< <int>" */
	return i;
}

/*
 * Whether the space at s[i] is inside a local name's scope, a function
 * with its qualifiers ("f() const::{lambda()#1}"), not after a return type.
 */
static bool qualifies_a_scope(const char *s, size_t i, size_t len)
{
	static const char *const quals[] = {"const", "volatile", "&", "noexcept"};

	if (i == 0 || s[i - 1] != ')')
		return false;
	for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++)
		if (len - i - 1 >= strlen(quals[k]) &&
		    memcmp(s + i + 1, quals[k], strlen(quals[k])) == 0)
			return true;
	return false;
}

/* Where the name starts after a template function's return type, or 0. */
static size_t name_start(const char *s, size_t len)
{
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (len - i > 8 && memcmp(s + i, "operator", 8) == 0 &&
		    (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ')) {
			/* A conversion's type ("operator unsigned long") is all name. */
			if (depth == 0 && s[i + 8] == ' ')
				return start;
			i += 8 + operator_name(s + i + 8, len - i - 8) - 1;
			continue;
		}
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0 && !qualifies_a_scope(s, i, len))
			start = i + 1;
	}
	return start;
}

/* Whether name starts with one of the n prefixes. */
static bool starts_with_any(const char *name, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * Whether name is a special name that nests a whole function's encoding:
 * the demangler prints that function with its parameters, as perf shows it
 * ("virtual thunk to v8::internal::OFStream::~OFStream()").
 */
static bool nests_a_function(const char *name)
{
	static const char *const special[] = {"virtual thunk to ", "non-virtual thunk to ",
	                                      "covariant return thunk to ",
	                                      "transaction clone for "};

	return starts_with_any(name, special, sizeof(special) / sizeof(special[0]));
}

/*
 * Whether name is the special name of data about a type or an object, which
 * can end in a function type's parameters ("typeinfo for bool (int)").
 */
static bool names_data(const char *name)
{
	static const char *const special[] = {"typeinfo for ",
	                                      "typeinfo name for ",
	                                      "vtable for ",
	                                      "VTT for ",
	                                      "construction vtable for ",
	                                      "guard variable for ",
	                                      "reference temporary "};

	return starts_with_any(name, special, sizeof(special) / sizeof(special[0]));
}

size_t pev__sym_short_name(const char *name, size_t *len)
{
	const char *clone = strstr(name, " [clone ");
	size_t n = clone ? (size_t)(clone - name) : strlen(name);

	if (names_data(name)) {
		*len = strlen(name);
		return 0;
	}
	if (nests_a_function(name)) {
		*len = n;
		return 0;
	}
	size_t q = without_qualifiers(name, n), open;

	if (q == 0 || name[q - 1] != ')' || (open = params_start(name, q)) == q || open == 0) {
		*len = strlen(name);
		return 0;
	}
	*len = open - name_start(name, open);
	return open - *len;
}
