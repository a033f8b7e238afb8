/* Compares two perf.data files as perf diff -c ratio -s sym does. */
#include <perfev.h>
#include <stdio.h>

/* Loads path into *p; 0, or -1 after printing why. */
static int load(const char *path, struct pev_profile **p)
{
	struct pev_perfdata *pd;
	struct pev_error err;
	int rc = pev_perfdata_open(path, 0, &pd, &err);

	if (rc == 0) {
		rc = pev_profile_load(pd, NULL, p, &err);
		pev_perfdata_close(pd);
	}
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", path, err.message);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct pev_profile *old = NULL, *new_ = NULL;
	struct pev_report_opts r = PEV_REPORT_OPTS_INIT;
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_error err;
	int status = 1;

	if (load(argc > 1 ? argv[1] : "perf.data.old", &old) < 0 ||
	    load(argc > 2 ? argv[2] : "perf.data", &new_) < 0)
		goto out;
	r.sort = "sym";
	o.report = &r;
	o.compute = PEV_DIFF_RATIO; /* the new period divided by the old */
	if (pev_profile_write_diff(old, new_, stdout, &o, &err) < 0)
		fprintf(stderr, "%s\n", err.message);
	else
		status = 0;
out:
	pev_profile_free(new_);
	pev_profile_free(old);
	return status;
}
