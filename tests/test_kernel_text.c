/* SPDX-License-Identifier: MIT */
/*
 * test_kernel_text.c - where perfev record's kernel mapping starts
 * (cli/kernel_text.c): `_text` of /proc/kallsyms, or `_stext` where a
 * kernel lists no `_text` (the mapping is then "[kernel.kallsyms]_stext",
 * as perf names it); nothing from a list whose addresses are hidden. And
 * the loaded modules (cli/kernel_modules.c): each by address, named by its
 * file under /lib/modules/RELEASE, as perf record's MMAP records name them.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "helpers.h"
#include "kernel_modules.h"
#include "kernel_text.h"

TestSuite(kernel_text, .init = th_leak_init, .fini = th_leak_fini);

/* cli_kernel_text on a kallsyms file of the given text. */
static int text_of(const char *list, uint64_t *addr, const char **name)
{
	const char *path = th_path_join(th_temp_dir("kernel_text"), "kallsyms");

	th_write_file(path, list);
	int r = cli_kernel_text(path, addr, name);
	free((void *)path);
	return r;
}

Test(kernel_text, text_where_the_kernel_lists_it)
{
	uint64_t addr;
	const char *name;

	cr_assert_eq(text_of("0000000000000000 A fixed_percpu_data\n"
			     "ffffffff81000000 T startup_64\n"
			     "ffffffff81000000 T _stext\n"
			     "ffffffff81000000 T _text\n",
			     &addr, &name), 1);
	cr_expect_eq(addr, UINT64_C(0xffffffff81000000));
	cr_expect_str_eq(name, "_text");
}

/* A kernel that lists _stext and no _text: perf relocates by _stext there. */
Test(kernel_text, stext_where_no_text_is_listed)
{
	uint64_t addr;
	const char *name;

	cr_assert_eq(text_of("ffff800008000000 t _head\n"
			     "ffff800008010000 T _stext\n"
			     "ffff800008010000 T __exception_text_start\n"
			     "ffff800008011000 T do_one_initcall\n"
			     "ffff800008f00000 T _etext\n"
			     "ffff800000a00000 t virtio_dev_probe\t[virtio]\n",
			     &addr, &name), 1);
	cr_expect_eq(addr, UINT64_C(0xffff800008010000));
	cr_expect_str_eq(name, "_stext");
}

Test(kernel_text, hidden_or_missing_gives_none)
{
	uint64_t addr = 1;
	const char *name = "x";

	/* kptr_restrict shows every address as 0. */
	cr_expect_eq(text_of("0000000000000000 T _stext\n0000000000000000 T _text\n", &addr, &name),
		     0);
	cr_expect_eq(addr, 0);
	cr_expect_null(name);
	cr_expect_eq(text_of("ffffffff81000000 T _textx\nffffffff81000000 T x_text\n", &addr,
			     &name), 0);
	cr_expect_eq(cli_kernel_text("/nonexistent/kallsyms", &addr, &name), 0);
}

/* This machine's list: a start of kernel text whenever its addresses show. */
Test(kernel_text, this_kernel)
{
	uint64_t addr;
	const char *name;

	if (geteuid() != 0 || th_sysctl("kptr_restrict") >= 2)
		th_skip("/proc/kallsyms hides addresses from this user");
	cr_assert_eq(cli_kernel_text("/proc/kallsyms", &addr, &name), 1);
	cr_expect(strcmp(name, "_text") == 0 || strcmp(name, "_stext") == 0, "%s", name);
	cr_expect_neq(addr, 0);
}

/* Expects modules 1..3 of m (9p, netfs, virtio_net) to be these files under tree; frees m. */
static void expect_module_files(struct cli_kmod *m, const char *tree, const char *p9)
{
	const char *rel[] = {p9, "kernel/fs/netfs/netfs.ko.zst",
			     "kernel/drivers/net/virtio-net.ko.xz"};
	char path[PATH_MAX];

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, rel[i]);
		cr_expect_str_eq(m[i + 1].path, path);
	}
	free(m);
}

/*
 * /proc/modules of an arm64 guest: by address, each named by its file
 * (a '-' of a file name is the kernel's '_'; compressed files count), or
 * "[name]" when no file has its name; a hidden list gives none.
 */
Test(kernel_text, modules_by_address_named_by_their_files)
{
	const char *dir = th_temp_dir("kernel_modules");
	char *list = th_path_join(dir, "modules"), *tree = th_path_join(dir, "lib");
	char path[PATH_MAX];
	struct cli_kmod *m;

	th_write_file(list, "virtio_net 69632 0 - Live 0xffff80000a3c0000\n"
			    "9p 73728 1 - Live 0xffff80000a280000\n"
			    "netfs 65536 1 9p, Live 0xffff80000a290000 (E)\n"
			    "gone 4096 0 - Live 0xffff80000a000000\n");
	snprintf(path, sizeof(path), "mkdir -p '%s/kernel/fs/9p' '%s/kernel/drivers/net' "
		 "'%s/kernel/fs/netfs'", tree, tree, tree);
	free(th_sh_ok(path));
	snprintf(path, sizeof(path), "%s/kernel/fs/9p/9p.ko", tree);
	th_write_file(path, "");
	snprintf(path, sizeof(path), "%s/kernel/drivers/net/virtio-net.ko.xz", tree);
	th_write_file(path, "");
	snprintf(path, sizeof(path), "%s/kernel/fs/netfs/netfs.ko.zst", tree);
	th_write_file(path, "");
	snprintf(path, sizeof(path), "%s/kernel/fs/netfs/netfs.o", tree);
	th_write_file(path, "");

	cr_assert_eq(cli_kernel_modules(list, tree, &m), 4);
	cr_expect_str_eq(m[0].name, "gone");
	cr_expect_str_eq(m[0].path, "[gone]");
	cr_expect_eq(m[1].start, UINT64_C(0xffff80000a280000));
	cr_expect_eq(m[1].size, 73728);
	expect_module_files(m, tree, "kernel/fs/9p/9p.ko");

	/*
	 * depmod's index (modules.dep) names the files without a walk: its
	 * paths win, relative to the tree or absolute; a module it does not
	 * list is still found in the tree.
	 */
	snprintf(path, sizeof(path), "%s/updates", tree);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/updates/9p.ko", tree);
	th_write_file(path, "");
	char dep[3 * PATH_MAX];
	snprintf(dep, sizeof(dep), "%s/modules.dep", tree);
	snprintf(path, sizeof(path), "updates/9p.ko: kernel/fs/netfs/netfs.ko.zst\n"
		 "garbage line\n%s/kernel/drivers/net/virtio-net.ko.xz:\n", tree);
	th_write_file(dep, path);
	cr_assert_eq(cli_kernel_modules(list, tree, &m), 4);
	cr_expect_str_eq(m[0].path, "[gone]");
	expect_module_files(m, tree, "updates/9p.ko");

	th_write_file(list, "9p 73728 1 - Live 0x0000000000000000\n");
	cr_expect_eq(cli_kernel_modules(list, tree, &m), 0);
	cr_expect_null(m);
	cr_expect_eq(cli_kernel_modules("/nonexistent/modules", tree, &m), 0);
	free(list);
	free(tree);
}
