/* SPDX-License-Identifier: MIT */
/*
 * test_report_options.c - `perfev report`'s perf options and defaults
 * (issue 13, items 6 and 7) against `perf report --stdio`, line for line,
 * on a file perf records from a C++ -O2 program (report_cxx: classes in a
 * namespace, templates, an anonymous namespace; libstdc++, libc and the
 * dynamic loader): -n, -q, -v, --no-demangle, --comms, --dsos, --symbols,
 * --pid, --tid, -F, --header, --header-only, the pid and srcline sort keys,
 * base names in the DSO column and C++ names without parameter lists. Only
 * user-space samples are recorded (cpu-clock:u): the options are what is
 * tested, kernel symbols are test_cmd_report's. The one normalization:
 * perf's random "(Tip: ...)" block at the end is dropped.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#include "symbols/symbols_internal.h"

static const char *dir; /* removed when the test's process exits */

static void setup(void)
{
	th_leak_init();
	dir = th_temp_dir("ropt");
}

static void teardown(void)
{
	th_leak_fini();
}

TestSuite(report_options, .init = setup, .fini = teardown);

/* The C++ workload, or a skip when the build had no C++ compiler. */
static const char *cxx_program(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	cr_assert_gt(n, 0);
	path[n] = '\0';
	slash = strrchr(path, '/');
	cr_assert_not_null(slash);
	strcpy(slash + 1, "report_cxx");
	if (access(path, X_OK) != 0)
		th_skip("report_cxx was not built (no C++ compiler at configure time)");
	return path;
}

/* perf records the C++ workload's user-space samples into DIR/cxx.data. */
static const char *record_cxx(void)
{
	static char file[PATH_MAX];
	char cmd[2 * PATH_MAX + 128];
	const char *prog;

	th_need_perf();
	prog = cxx_program();
	snprintf(file, sizeof(file), "%s/cxx.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock:u -o '%s' '%s' 1500 2>&1", file,
		 prog);
	free(th_sh_ok(cmd));
	return file;
}

/* Drops perf's "#\n# (Tip: ...)\n#\n" from the end of text (in place). */
static void drop_tip(char *text)
{
	char *tip = strstr(text, "#\n# (Tip: ");

	if (tip)
		*tip = '\0';
}

/*
 * Runs `perf report` and `perfev report` with --stdio and args on file,
 * and expects the same lines; on a difference names the first. Entries
 * under 1% are left out (the column widths still count them, as perf's
 * do): a few startup samples in libc and the loader resolve differently
 * (perf names `__memset_avx512_unaligned_erms` where perfev has an
 * address; PLT stubs: docs/PERF_DIFFERENCES.md).
 */
static void expect_like_perf(const char *file, const char *args)
{
	char cmd[PATH_MAX + 1024];
	char *ours, *theirs;
	const char *a, *b;
	int line = 1;

	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --percent-limit 1 %s 2>/dev/null",
		 file, args);
	theirs = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --percent-limit 1 %s",
		 th_perfev_bin(), file, args);
	ours = th_sh_ok(cmd);
	drop_tip(theirs);
	for (a = ours, b = theirs; *a && *b; line++) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || memcmp(a, b, la) != 0)
			break;
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
	}
	cr_expect(!*a && !*b,
		  "report %s: line %d differs\nperfev: %.*s|\nperf:   %.*s|\n--- perfev:\n%s\n"
		  "--- perf:\n%s",
		  args, line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b, ours, theirs);
	free(ours);
	free(theirs);
}

/* The process id perf's report gives the workload's one thread. */
static long workload_pid(const char *file)
{
	char cmd[PATH_MAX + 128];
	char *out;
	long pid;

	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio -q --sort pid 2>/dev/null", file);
	out = th_sh_ok(cmd);
	cr_assert_eq(sscanf(out, " %*f%% %ld:", &pid), 1, "%s", out);
	free(out);
	return pid;
}

Test(report_options, defaults_like_perf)
{
	const char *f = record_cxx();

	/* Base names in the DSO column, C++ names without parameters. */
	expect_like_perf(f, "--no-children");
	expect_like_perf(f, "--no-children --sort dso");
	expect_like_perf(f, "--no-children --sort sym,dso");
}

Test(report_options, pid_key_like_perf)
{
	const char *f = record_cxx();

	expect_like_perf(f, "--no-children --sort pid");
	expect_like_perf(f, "--no-children --sort pid,sym");
	expect_like_perf(f, "--no-children --sort comm,pid,dso");
}

Test(report_options, columns_and_quiet_like_perf)
{
	const char *f = record_cxx();

	expect_like_perf(f, "--no-children -n");
	expect_like_perf(f, "--no-children --show-nr-samples --sort dso,sym");
	expect_like_perf(f, "--no-children -q");
	expect_like_perf(f, "--no-children -q -n --sort pid");
	/* -v: full paths (perf's symbol column then adds addresses: sort without it). */
	expect_like_perf(f, "--no-children -v --sort dso");
	expect_like_perf(f, "--no-children -v --sort comm,dso");
	expect_like_perf(f, "--no-children --no-demangle");
	expect_like_perf(f, "--no-children --no-demangle --sort sym");
}

/*
 * perf's srcline key: the sampled line's file (base name) and number. Only
 * the workload's hot functions (--symbols): the lines of libc and the
 * loader come from separate debuginfo that perf and perfev may find
 * differently, and a rare sample at a function's first byte may be given
 * another line (the widths count every entry).
 */
Test(report_options, srcline_like_perf)
{
	const char *f = record_cxx();
	const char *hot = "-S 'geo::Circle::area,geo::Square::area,geo::Grid<int>::sum'";
	char args[256];

	snprintf(args, sizeof(args), "--no-children --sort srcline %s", hot);
	expect_like_perf(f, args);
	snprintf(args, sizeof(args), "--no-children --sort sym,srcline %s", hot);
	expect_like_perf(f, args);
	snprintf(args, sizeof(args), "--no-children --sort srcline,sym -n %s", hot);
	expect_like_perf(f, args);
	snprintf(args, sizeof(args), "--no-children -F overhead,srcline,dso -d report_cxx %s", hot);
	expect_like_perf(f, args);
}

/* perf's -F: the columns given, in their order, sorted by --sort keys then by the fields. */
Test(report_options, fields_like_perf)
{
	const char *f = record_cxx();

	expect_like_perf(f, "--no-children -F overhead,sym");
	expect_like_perf(f, "--no-children -F comm,sym");
	expect_like_perf(f, "--no-children --fields sample,period,dso");
	expect_like_perf(f, "--no-children -F overhead,sample,period,comm,dso,sym");
	expect_like_perf(f, "--no-children -F dso,overhead --sort sym");
	expect_like_perf(f, "--no-children -F overhead,sym --sort dso");
	expect_like_perf(f, "--no-children -F pid,sample");
	expect_like_perf(f, "--no-children -F sym,period -q");
}

Test(report_options, filters_like_perf)
{
	const char *f = record_cxx();
	char args[256];
	long pid = workload_pid(f);

	expect_like_perf(f, "--no-children --comms report_cxx");
	expect_like_perf(f, "--no-children -c report_cxx,other --sort comm,sym");
	expect_like_perf(f, "--no-children --dsos report_cxx");
	/* The symbol before a column left out is padded, as perf's. */
	expect_like_perf(f, "--no-children --dsos report_cxx --sort sym,dso");
	expect_like_perf(f, "--no-children -d libc.so.6,report_cxx --sort dso,sym");
	expect_like_perf(f, "--no-children --symbols geo::Circle::area");
	expect_like_perf(f, "--no-children -S geo::Circle::area,geo::Square::area,main");
	expect_like_perf(f, "--no-children -q --comms report_cxx");
	expect_like_perf(f, "--no-children -c report_cxx -d report_cxx -S geo::Circle::area");
	snprintf(args, sizeof(args), "--no-children --pid %ld", pid);
	expect_like_perf(f, args);
	snprintf(args, sizeof(args), "--no-children --tid %ld -n --sort pid,dso", pid);
	expect_like_perf(f, args);
	expect_like_perf(f, "--no-children --pid 1");
}

/*
 * A stripped static program has no symbols at all: each sample is an
 * address, and no library's name widens a column. perf widens the Shared
 * Object column of an entry first met at an address to 16 (an address's
 * digits), under every sort order, unless --dsos filters.
 */
Test(report_options, unresolved_entries_like_perf)
{
	char file[PATH_MAX], cmd[2 * PATH_MAX], *out = NULL;

	th_need_perf();
	if (!th_have_program("cc"))
		th_skip("no C compiler (cc) to build the stripped static program");
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && printf '%%s\\n' 'int main(void) { volatile unsigned long x = 0;'"
		 " 'for (unsigned long i = 0; i < 200000000UL; i++) x += i; return 0; }'"
		 " > spin.c && cc -O1 -static -o spin spin.c 2>&1 && strip -s spin",
		 dir);
	if (th_sh(cmd, &out, NULL) != 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", out ? out : "");
		free(out);
		th_skip("cc cannot link a static program here (no static libc?): %s", why);
	}
	free(out);
	snprintf(file, sizeof(file), "%s/spin.data", dir);
	free(th_sh_okf("cd '%s' && perf record -q -e cpu-clock:u -o '%s' ./spin 2>&1", dir, file));
	expect_like_perf(file, "--no-children --sort dso");
	expect_like_perf(file, "--no-children --sort dso,sym");
	expect_like_perf(file, "--no-children --sort comm,dso");
	expect_like_perf(file, "--no-children -F overhead,sym --sort dso");
	expect_like_perf(file, "--no-children --dsos spin --sort dso,sym");
}

Test(report_options, cxx_names)
{
	const char *f = record_cxx();
	char cmd[PATH_MAX + 256], *out;

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --no-children -q --sort sym",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	expect_has(out, "[.] geo::Circle::area\n");
	expect_has(out, "[.] geo::Grid<int>::sum\n");
	expect_lacks(out, "area()");
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --no-children -q --sort sym -v",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	expect_has(out, "[.] geo::Circle::area() const\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --no-children -q --sort sym --no-demangle",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	expect_has(out, "[.] _ZNK3geo6Circle4areaEv\n");
	free(out);
}

Test(report_options, bad_ids)
{
	struct th_output f = th_perfev("report", "-F", "overhead,colour");

	cr_expect_eq(f.status, 129);
	expect_has(f.err, "unknown field 'colour' in '-F overhead,colour'; use overhead, "
			  "overhead_children, sample, period or a sort key");
	th_output_free(&f);

	struct th_output r = th_perfev("report", "--pid", "12x");

	cr_expect_eq(r.status, 129);
	expect_has(r.err, "option '--pid' needs comma-separated ids");
	th_output_free(&r);
	r = th_perfev("report", "--tid", "");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "option '--tid' needs");
	th_output_free(&r);
}

/* The short form of demangled names, as perf shows them without parameters. */
Test(report_options, short_names)
{
	static const char *const cases[][2] = {
		{"geo::Circle::area() const", "geo::Circle::area"},
		{"double geo::total<double>(std::vector<geo::Shape*, std::allocator<geo::Shape*> > "
		 "const&)",
		 "geo::total<double>"},
		{"(anonymous namespace)::Scale::operator()(double) const [clone .constprop.0]",
		 "(anonymous namespace)::Scale::operator()"},
		{"(anonymous namespace)::spin(long) [clone .constprop.0]",
		 "(anonymous namespace)::spin"},
		{"geo::Grid<int>::sum() const", "geo::Grid<int>::sum"},
		{"bool operator< <int>(A<int> const&, A<int> const&)", "operator< <int>"},
		{"std::ostream::operator<<(int)", "std::ostream::operator<<"},
		/* An operator's template arguments follow it with no space (node's). */
		{"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
		 "std::operator+<char, std::char_traits<char>, std::allocator<char> >(std::__cxx11::"
		 "basic_string<char, std::char_traits<char>, std::allocator<char> > const&, "
		 "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >&&) "
		 "[clone .isra.0]",
		 "std::operator+<char, std::char_traits<char>, std::allocator<char> >"},
		{"bool operator==<int>(A<int> const&, A<int> const&)", "operator==<int>"},
		{"bool operator<=<int>(A<int> const&, A<int> const&)", "operator<=<int>"},
		{"bool operator<<=<int>(A<int>&, int)", "operator<<=<int>"},
		{"bool operator<=><A>(A const&, A const&)", "operator<=><A>"},
		{"int X::operator-><int>()", "X::operator-><int>"},
		{"X::operator[](unsigned long)", "X::operator[]"},
		/* A conversion's type is the name, spaces and parentheses too (libLLVM's). */
		{"llvm::TypeSize::operator unsigned long() const", "llvm::TypeSize::operator unsigned long"},
		{"std::__exception_ptr::exception_ptr::operator void "
		 "(std::__exception_ptr::exception_ptr::*)()() const",
		 "std::__exception_ptr::exception_ptr::operator void "
		 "(std::__exception_ptr::exception_ptr::*)()"},
		/* A local name's scope is a function with its parameters and qualifiers (node's). */
		{"v8::Foo::Run(int) const::{lambda()#1}::operator()() const",
		 "v8::Foo::Run(int) const::{lambda()#1}::operator()"},
		{"std::string f<int>(int)::{lambda(uv_fs_s*)#1}::_FUN(uv_fs_s*)",
		 "f<int>(int)::{lambda(uv_fs_s*)#1}::_FUN"},
		/* A return type that ends in a parenthesis (cc1plus's decltype). */
		{"({parm#3}({parm#1}, 0)) t<int>::search<int>(int*, int)", "t<int>::search<int>"},
		/* Data about a function type ends in its parameters; it is no function. */
		{"typeinfo for bool (llvm::SDValue)", "typeinfo for bool (llvm::SDValue)"},
		{"typeinfo for decltype(nullptr)", "typeinfo for decltype(nullptr)"},
		{"non-virtual thunk to node::TLSWrap::ReadStop() [clone .cold]",
		 "non-virtual thunk to node::TLSWrap::ReadStop()"},
		{"operator new(unsigned long)", "operator new"},
		{"Foo::operator int() const", "Foo::operator int"},
		{"unsigned int f<unsigned int>(int)", "f<unsigned int>"},
		{"main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()"},
		{"guard variable for geo::count", "guard variable for geo::count"},
		/* A thunk nests a function the demangler prints whole (node's OFStream, as perf). */
		{"virtual thunk to v8::internal::OFStream::~OFStream()",
		 "virtual thunk to v8::internal::OFStream::~OFStream()"},
		{"non-virtual thunk to geo::Circle::area() const",
		 "non-virtual thunk to geo::Circle::area() const"},
		{"geo::count", "geo::count"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len, start = pev__sym_short_name(cases[i][0], &len);
		char got[256];

		snprintf(got, sizeof(got), "%.*s", (int)len, cases[i][0] + start);
		cr_expect_str_eq(got, cases[i][1], "%s", cases[i][0]);
	}
}

/*
 * A name whose parameter types libstdc++'s demangler cannot resolve (node's,
 * where __cxa_demangle answers -2 and c++filt prints it mangled) is named
 * without its parameters, as perf names it; the long form stays mangled,
 * as perf -v leaves it. The names that demangle whole keep their forms.
 */
Test(report_options, demangle_name_when_its_parameters_fail)
{
	static const char *const v8 =
		"_ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCastIZNS1_22Dispatch"
		"ToSpecificTypeIZNKS0_6String7GetImplEiNS0_16PtrComprCageBaseERKNS0_31SharedStri"
		"ngAccessGuardIfNeededEE19StringGetDispatchertJRiRS5_S8_EEET0_S4_DpOT1_E17Casting"
		"DispatchertJRS4_SA_SB_S8_EEESC_SF_";
	static const char *const cases[][3] = {
		{v8,
		 "v8::internal::StringShape::DispatchToSpecificTypeWithoutCast<v8::internal::"
		 "StringShape::DispatchToSpecificType<v8::internal::String::GetImpl(int, "
		 "v8::internal::PtrComprCageBase, v8::internal::SharedStringAccessGuardIfNeeded "
		 "const&) const::StringGetDispatcher, unsigned short, int&, "
		 "v8::internal::PtrComprCageBase&, v8::internal::SharedStringAccessGuardIfNeeded "
		 "const&>(v8::internal::String, int&, v8::internal::PtrComprCageBase&, "
		 "v8::internal::SharedStringAccessGuardIfNeeded const&)::CastingDispatcher, "
		 "unsigned short, v8::internal::String&, int&, v8::internal::PtrComprCageBase&, "
		 "v8::internal::SharedStringAccessGuardIfNeeded const&>",
		 NULL},
		{"_ZN3geo5totalIdEET_RKSt6vectorIPNS_5ShapeESaIS4_EE", "geo::total<double>",
		 "double geo::total<double>(std::vector<geo::Shape*, std::allocator<geo::Shape*> > "
		 "const&)"},
		{"_ZNK3geo6Circle4areaEv", "geo::Circle::area", "geo::Circle::area() const"},
		{"_ZSt4moveIRiEONSt16remove_referenceIT_E4typeEOS2_", "std::move<int&>",
		 "std::remove_reference<int&>::type&& std::move<int&>(int&)"},
	};
	struct pev__arena arena = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = pev__sym_demangle(&arena, cases[i][0], true);
		const char *l = pev__sym_demangle(&arena, cases[i][0], false);

		cr_expect_str_eq(s ? s : "(null)", cases[i][1], "short form of %s", cases[i][0]);
		cr_expect_str_eq(l ? l : "(null)", cases[i][2] ? cases[i][2] : "(null)",
				 "long form of %s", cases[i][0]);
	}
	/* Not names at all: no prefix demangles into one. */
	cr_expect_null(pev__sym_demangle(&arena, "_ZEEEE", true));
	cr_expect_null(pev__sym_demangle(&arena, "_Z3fooE", true));
	pev__arena_free(&arena);
}

/* perf's "# ========" header block, on perf's file and on perfev's. */
Test(report_options, header_like_perf)
{
	const char *f = record_cxx();
	char ours[PATH_MAX], cmd[2 * PATH_MAX + 128];

	expect_like_perf(f, "--header-only");
	expect_like_perf(f, "--no-children --header");
	expect_like_perf(f, "--no-children --header -n --sort dso");
	snprintf(ours, sizeof(ours), "%s/ours.data", dir);
	snprintf(cmd, sizeof(cmd), "'%s' record -q -e cpu-clock -o '%s' -- '%s' 200 2>&1",
		 th_perfev_bin(), ours, cxx_program());
	free(th_sh_ok(cmd));
	expect_like_perf(ours, "--header-only");
	snprintf(cmd, sizeof(cmd), "perf record -q -e '{cpu-clock,task-clock}' -o '%s' '%s' 200 2>&1",
		 ours, cxx_program());
	free(th_sh_ok(cmd));
	expect_like_perf(ours, "--header-only");
}

/* perfev script names C++ functions as perf script does: geo::Circle::area+0x33. */
Test(report_options, script_cxx_names)
{
	const char *f = record_cxx();
	char cmd[PATH_MAX + 128], *out;

	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s'", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	expect_has(out, " geo::Circle::area+0x");
	expect_lacks(out, "area()");
	free(out);
}
