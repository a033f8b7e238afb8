// SPDX-License-Identifier: MIT
//
// adopter_cxx.cc - a C++ program written as a C++ adopter of libperfev
// writes one: the structs without `struct`, the *_INIT macros, a counter
// owned by a std::unique_ptr. tests/adopter.sh builds it against the
// installed library only (shared and static) and runs it: it checks that the
// library it runs with is the one its headers describe, that the INIT macros
// give C++ what they give C (sz set, every other field zero), and that a
// counter counts. Exits 0 when all holds, 1 otherwise.
#include <perfev.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace {

struct counter_closer {
	void operator()(pev_counter *c) const
	{
		pev_counter_close(c);
	}
};
using counter_ptr = std::unique_ptr<pev_counter, counter_closer>;

bool expect(bool ok, const char *what)
{
	if (!ok)
		std::fprintf(stderr, "adopter_cxx: %s\n", what);
	return ok;
}

// Some CPU time for the counter to see.
__attribute__((noinline)) unsigned long work()
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < 20000000; i++) {
		sum += i ^ (sum >> 3);
		__asm__ volatile("" : "+r"(sum));
	}
	return sum;
}

} // namespace

int main()
{
	bool ok = true;

	std::printf("libperfev %s, headers %s\n", pev_version(), PEV_VERSION_STRING);
	ok &= expect(std::strcmp(pev_version(), PEV_VERSION_STRING) == 0 &&
			     pev_version_number() == PEV_VERSION_NUMBER,
		     "the library's version is not the headers'");

	pev_opts opts = PEV_OPTS_INIT;
	ok &= expect(opts.sz == sizeof(pev_opts) && !opts.disabled && !opts.exclude_kernel &&
			     opts.sample_period == 0 && opts.read_format == 0,
		     "PEV_OPTS_INIT: sz not sizeof(pev_opts) or a field not zero");
	pev_profile_sample sample = PEV_PROFILE_SAMPLE_INIT;
	ok &= expect(sample.sz == sizeof(sample) && sample.frame_sz == sizeof(pev_profile_frame) &&
			     sample.cpu == -1 && sample.period == 0 && sample.comm == nullptr,
		     "PEV_PROFILE_SAMPLE_INIT: not the sizes, cpu -1 and zeros");

	pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	pev_error err;
	pev_counter *raw = nullptr;
	opts.exclude_kernel = true; // user space only: works unprivileged
	if (pev_counter_open(&ev, &opts, nullptr, nullptr, &raw, &err) < 0) {
		char text[4096];

		std::fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		return 1;
	}
	counter_ptr clock(raw);
	unsigned long sum = work();
	pev_count count;
	ok &= expect(pev_counter_read(clock.get(), &count) == 0, "pev_counter_read failed");
	ok &= expect(count.value > 0, "task-clock counted nothing");
	std::printf("task-clock: %.3f ms (work %lu)\n", (double)count.value / 1e6, sum % 10);
	std::printf("%s\n", ok ? "ok" : "MISMATCH");
	return ok ? 0 : 1;
}
