#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the section 3 manual page of one public header of libperfev.

    gen_man3.py VERSION HEADER EXAMPLE OUT      one header: perfev_<name>(3)
    gen_man3.py VERSION --index UMBRELLA EXAMPLE OUT HEADER...   libperfev(3)
    gen_man3.py --link-names HEADER          the names that get a link page
    gen_man3.py --links HEADER OUTDIR NAME...   NAME.3 -> perfev_<header>(3) pages

The page is built from the header itself, so it cannot drift from the API:
NAME and DESCRIPTION from the header's opening comment, SYNOPSIS from every
function declaration (PEV_API and static inline), FUNCTIONS, TYPES (with
each member's meaning) and MACROS from the doc comment (/** ... */) before
each declaration (a member's: before it, or /**< ... */ after it), and
EXAMPLE from a hand-written program (docs/man/examples/), which the test
suite compiles. Markdown documents a header mentions are named by their
installed path (share/doc/perfev).
"""
import os
import re
import sys

DOC_DIR = "share/doc/perfev"


def roff_escape(text):
    """Escapes text for roff: backslashes, hyphens, a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith(".") or text.startswith("'"):
        text = "\\&" + text
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)


def doc_paths(text):
    """Names a source-tree document (docs/X.md) by its installed path."""
    return re.sub(r"\bdocs/([A-Za-z_]+\.md)", DOC_DIR + r"/\1", text)


def comment_lines(comment):
    """The text lines of a /* */ or /** */ comment, without the markers."""
    body = re.sub(r"^/\*\*?", "", comment.strip())
    body = re.sub(r"\*/$", "", body)
    lines = []
    for line in body.split("\n"):
        line = re.sub(r"^\s*\* ?", "", line.rstrip())
        lines.append(line)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def roff_paragraphs(lines):
    """Turns comment lines into roff: blank lines part paragraphs, list items
    and indented lines keep their own line."""
    out = []
    for line in lines:
        if not line.strip():
            if out and out[-1] != ".PP":
                out.append(".PP")
            continue
        line = doc_paths(line)
        if re.match(r"^\s*([-*]|\d+\.) ", line) or line.startswith("  "):
            out.append(".br")
            out.append("\\ \\ " + roff_escape(line.strip()) if line.startswith("  ")
                       else roff_escape(line.strip()))
        else:
            out.append(roff_escape(line.strip()))
    return out


class Header:
    """The declarations of one header, in order."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.summary, self.description = self._opening()
        self.functions = []  # (name, prototype, doc lines)
        self.types = []      # (name, doc lines)
        self.macros = []     # (name, doc lines)
        self.includes = re.findall(r'#include "perfev/([a-z_]+)\.h"', self.text)
        self._scan()

    def _opening(self):
        m = re.search(r"/\*\n \* (?:perfev/)?[a-z_.]+ - (.*?)\*/", self.text, re.S) or \
            re.search(r"/\*\*\n \* @file [a-z_.]+\n(.*?)\*/", self.text, re.S)
        if not m:
            return "", []
        lines = comment_lines("/*" + m.group(1) + "*/")
        summary = []
        while lines and lines[0].strip():
            summary.append(lines.pop(0).strip())
        summary = " ".join(summary).rstrip(".")
        if summary[:2].istitle() and summary[1:2].islower():
            summary = summary[0].lower() + summary[1:]
        return summary, lines

    def _scan(self):
        lines = self.text.split("\n")
        doc = None
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if stripped.startswith("/**") and not stripped.startswith("/**<"):
                start = i
                while "*/" not in lines[i]:
                    i += 1
                doc = comment_lines("\n".join(lines[start:i + 1]))
                i += 1
                continue
            if not stripped:
                i += 1
                continue
            if line.startswith("PEV_API ") or line.startswith("static inline "):
                start = i
                end_char = ";" if line.startswith("PEV_API") else "{"
                while end_char not in lines[i]:
                    i += 1
                decl = " ".join(l.strip() for l in lines[start:i + 1])
                decl = decl.split(end_char)[0].strip()
                decl = re.sub(r"^PEV_API\s+", "", decl)
                decl = re.sub(r"^static inline\s+", "", decl)
                decl = re.sub(r"\s+", " ", decl).replace("( ", "(").replace(" )", ")")
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", decl)
                if m:
                    self.functions.append((m.group(1), decl + ";", doc or []))
            elif re.match(r"^(struct|enum|union) pev_[a-z0-9_]+ \{", line):
                start = i
                depth = 0
                while True:
                    depth += lines[i].count("{") - lines[i].count("}")
                    if depth <= 0:
                        break
                    i += 1
                self.types.append((line.split("{")[0].strip(), doc or [],
                                   members(lines[start + 1:i])))
            elif line.startswith("typedef ") and doc is not None:
                start = i
                while ";" not in lines[i]:
                    i += 1
                decl = " ".join(l.strip() for l in lines[start:i + 1])
                m = re.search(r"\(\s*\*\s*([A-Za-z0-9_]+)\)", decl) or \
                    re.search(r"([A-Za-z0-9_]+)\s*;", decl)
                if m:
                    self.types.append(("typedef " + m.group(1), doc, []))
            elif line.startswith("#define ") and doc is not None:
                m = re.match(r"#define ([A-Z0-9_]+(\([^)]*\))?)", line)
                if m and not m.group(1).startswith("PERFEV_"):
                    self.macros.append((m.group(1), doc))
            doc = None
            i += 1


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text).strip()


def members(body):
    """(declaration, doc lines) of each member of a struct, union or enum
    body: its doc comment is a /** */ block before it or a /**< */ after it
    (plain /* */ comments are headings, not descriptions). The members of a
    nested struct or union are left to their own declaration's line."""
    out = []
    doc = []
    depth = 0
    i = 0
    while i < len(body):
        line = body[i].strip()
        if depth == 0 and line.startswith("/**") and not line.startswith("/**<"):
            start = i
            while "*/" not in body[i]:
                i += 1
            doc = comment_lines("\n".join(body[start:i + 1]))
            i += 1
            continue
        if depth == 0 and line.startswith("/*"):
            while "*/" not in body[i]:
                i += 1
            i += 1
            continue
        text = line
        # A trailing /**< */ may run on over the next lines.
        if "/**<" in text and "*/" not in text.split("/**<", 1)[1]:
            while "*/" not in body[i]:
                i += 1
                text += " " + body[i].strip()
        opens, closes = text.count("{"), text.count("}")
        if depth == 0 and opens > closes:
            depth += opens - closes
            i += 1
            continue
        if depth > 0:
            depth += opens - closes
            if depth > 0:
                i += 1
                continue
            text = text.lstrip("} ")
        trailing = re.search(r"/\*\*<(.*?)\*/", text, re.S)
        decl = strip_comments(text).rstrip(";,").strip()
        if decl and not decl.startswith("#"):
            note = comment_lines("/*" + trailing.group(1) + "*/") if trailing else doc
            out.append((re.sub(r"\s+", " ", decl), note))
        doc = []
        i += 1
    return out


def page_name(header):
    return "perfev_" + header.name[:-2]


def section(out, title, entries):
    if not entries:
        return
    out.append(".SH " + title)
    for name, doc in entries:
        out.append(".TP")
        out.append(".B " + roff_escape(name))
        out += roff_paragraphs(doc) or ["(no description)"]


def types_section(out, types):
    """TYPES: each type's description, then each member with its meaning."""
    if not types:
        return
    out.append(".SH TYPES")
    for name, doc, fields in types:
        out.append(".TP")
        out.append(".B " + roff_escape(name))
        out += roff_paragraphs(doc) or ["(no description)"]
        if not fields:
            continue
        out.append(".RS")
        out.append("Members:" if not name.startswith("enum") else "Values:")
        for decl, note in fields:
            out.append(".TP")
            out.append(".I " + roff_escape(decl))
            # An enum value's name says what it is; a struct member needs a doc comment.
            out += roff_paragraphs(note) or (["\\&"] if name.startswith("enum") else
                                             ["(undocumented)"])
        out.append(".RE")


def example(out, path):
    out.append(".SH EXAMPLE")
    out.append("The program below is compiled by perfev's test suite;")
    out.append("build it with")
    out.append(".BR \"cc example.c $(pkg\\-config \\-\\-cflags \\-\\-libs perfev)\" .")
    out.append(".PP")
    out.append(".EX")
    with open(path, encoding="utf-8") as f:
        for line in f.read().rstrip("\n").split("\n"):
            out.append(roff_escape(line) if line else "")
    out.append(".EE")


def see_also(out, pages, docs):
    out.append(".SH SEE ALSO")
    refs = [".BR %s (%s)" % (roff_escape(p), s) for p, s in pages]
    out += [r + "," for r in refs[:-1]] + refs[-1:]
    if docs:
        out.append(".PP")
        out.append("Documents installed with perfev (under the installation prefix):")
        out.append(roff_escape(", ".join(docs)) + ".")


def head(out, title, summary, version, sources):
    out.append(".\\\" SPDX-License-Identifier: MIT")
    out.append(".\\\" Generated by scripts/gen_man3.py from %s; edit those." % ", ".join(sources))
    out.append('.TH %s 3 2026 "perfev %s" "Library Functions Manual"' % (title.upper(), version))
    out.append(".nh")
    out.append(".SH NAME")
    out.append("%s \\- %s" % (roff_escape(title), roff_escape(summary)))
    out.append(".SH LIBRARY")
    out.append("perfev library")
    out.append('.RI ( libperfev ", " \\-lperfev )')


def docs_of(text):
    return sorted(set(DOC_DIR + "/" + d for d in
                      re.findall(r"(?:\bdocs/|share/doc/perfev/)([A-Za-z_]+\.md)", text)))


def header_page(version, path, example_path):
    h = Header(path)
    out = []
    head(out, page_name(h), h.summary, version,
         ["include/perfev/" + h.name, "docs/man/examples/" + os.path.basename(example_path)])
    out.append(".SH SYNOPSIS")
    out.append(".nf")
    out.append(".B #include <perfev/%s>" % h.name)
    if h.functions:
        out.append("")
        for _, proto, _ in h.functions:
            out.append(".B " + roff_escape(proto))
    out.append(".fi")
    out.append(".SH DESCRIPTION")
    out += roff_paragraphs(h.description) or [roff_escape(h.summary) + "."]
    out.append(".PP")
    out.append("Fallible functions return 0 (or a count) or a negative")
    out.append(".B PEV_E*")
    out.append("code; see")
    out.append(".BR perfev_error (3).")
    section(out, "FUNCTIONS", [(name + "()", doc) for name, _, doc in h.functions])
    types_section(out, h.types)
    section(out, "MACROS", h.macros)
    example(out, example_path)
    pages = [("libperfev", 3)] + [("perfev_" + i, 3) for i in h.includes if i != "common"]
    see_also(out, pages, docs_of(h.text))
    return "\n".join(out) + "\n"


def index_page(version, umbrella, example_path, headers):
    hs = [Header(p) for p in headers]
    out = []
    head(out, "libperfev", "perf_event_open(2) made complete, safe and easy", version,
         ["include/perfev.h", "the headers", "docs/man/examples/" +
          os.path.basename(example_path)])
    out.append(".SH SYNOPSIS")
    out.append(".nf")
    out.append(".B #include <perfev.h>")
    out.append(".fi")
    out.append(".PP")
    out.append("Link with")
    out.append(".BR \"$(pkg\\-config \\-\\-libs perfev)\" .")
    out.append(".SH DESCRIPTION")
    out.append(".B perfev.h")
    out.append("includes every header below. Each has its own page, listing its")
    out.append("functions with an example.")
    out.append("Conventions: every name starts with")
    out.append(".B pev_")
    out.append("or")
    out.append(".BR PEV_ ;")
    out.append("functions are named object then verb")
    out.append(".RB ( pev_counter_open );")
    out.append("fallible functions return 0 (or a count) or a negative")
    out.append(".B PEV_E*")
    out.append("code, and opening functions fill an optional")
    out.append(".B struct pev_error")
    out.append("with a message and a fix; the library never prints, exits or aborts;")
    out.append("option structures carry their own size")
    out.append(".RB ( sz ,")
    out.append("set by their")
    out.append(".B *_INIT")
    out.append("macro).")
    out.append(".SH HEADERS")
    for h in hs:
        out.append(".TP")
        out.append(".BR %s (3)" % roff_escape(page_name(h)))
        out.append("<perfev/%s>: %s." % (h.name, roff_escape(h.summary)))
    out.append(".SH FUNCTIONS")
    out.append("Every function, with the page that describes it.")
    out.append(".PP")
    out.append(".nf")
    for h in hs:
        for name, _, _ in h.functions:
            out.append("%s\t%s(3)" % (roff_escape(name), roff_escape(page_name(h))))
    out.append(".fi")
    example(out, example_path)
    all_docs = sorted(set(d for h in hs for d in docs_of(h.text)) |
                      {DOC_DIR + "/API.md", DOC_DIR + "/ERRORS.md", DOC_DIR + "/OPTIONS.md"})
    see_also(out, [("perfev", 1), ("perf_event_open", 2)] +
             [(page_name(h), 3) for h in hs], all_docs)
    return "\n".join(out) + "\n"


def link_names(header):
    """The names that get a page of their own, each a link to the header's
    page: every function and type ("pev_opts" for struct pev_opts)."""
    h = Header(header)
    names = [name for name, _, _ in h.functions]
    names += [t[0].split()[-1] for t in h.types]
    # A function may bear its struct's name (pev_perfdata_time_conv): one page.
    return list(dict.fromkeys(names))


def write_links(header, outdir, names):
    """Writes into OUTDIR a page NAME.3 holding ".so man3/perfev_HEADER.3" for
    each of names (functions and types of HEADER), so that `man 3
    pev_counter_open` opens <perfev/counter.h>'s page once installed beside it."""
    page = page_name(Header(header))
    for name in names:
        with open(os.path.join(outdir, name + ".3"), "w", encoding="utf-8") as f:
            f.write(".so man3/%s.3\n" % page)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--link-names":
        print("\n".join(link_names(argv[2])))
        return 0
    if len(argv) >= 4 and argv[1] == "--links":
        return write_links(argv[2], argv[3], argv[4:])
    if len(argv) >= 6 and argv[2] == "--index":
        page = index_page(argv[1], argv[3], argv[4], argv[6:])
        out = argv[5]
    elif len(argv) == 5:
        page = header_page(argv[1], argv[2], argv[3])
        out = argv[4]
    else:
        sys.stderr.write(__doc__)
        return 2
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
