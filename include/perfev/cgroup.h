/* SPDX-License-Identifier: MIT */
/*
 * perfev/cgroup.h - control groups: where they live on this machine, the
 * directory a name means, the id the kernel gives each one, the container
 * a path belongs to, and a table of ids to paths.
 *
 * Two hierarchies matter to perf events, and they need not be the same:
 *   - a cgroup *target* (pev_target_cgroup, PERF_FLAG_PID_CGROUP) is a
 *     directory of the perf_event controller's hierarchy: cgroup v1's
 *     perf_event mount where there is one, else the unified (v2) one;
 *   - a sample's cgroup id (PEV_SAMPLE_CGROUP) and a CGROUP record's id
 *     are always of the unified (v2) hierarchy.
 * Hosts differ: v2 alone at /sys/fs/cgroup, the hybrid layout with v2 at
 * /sys/fs/cgroup/unified, or v1 alone. These functions read
 * /proc/self/mountinfo and assume no layout.
 *
 *   char dir[PATH_MAX];
 *   pev_cgroup_dir("system.slice/nginx.service", dir, sizeof(dir), &err);
 *   struct pev_target t = pev_target_cgroup(dir);   // every CPU, that cgroup's tasks
 */
#ifndef PERFEV_CGROUP_H
#define PERFEV_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The mount point of the unified (cgroup v2) hierarchy into buf (size
 * bytes), the hierarchy samples' cgroup ids belong to. Returns 0,
 * PEV_EUNSUPPORTED (no cgroup2 mount: a v1-only host) or PEV_EBADARG
 * (NULL, or buf too small).
 */
PEV_API int pev_cgroup_v2_root(char *buf, size_t size);

/**
 * The mount point of the hierarchy a cgroup target's directory must be in
 * into buf: cgroup v1's perf_event controller where it is mounted, else the
 * unified hierarchy (where perf events are always available). Returns 0,
 * PEV_EUNSUPPORTED (neither is mounted) or PEV_EBADARG.
 */
PEV_API int pev_cgroup_events_root(char *buf, size_t size);

/**
 * The directory a cgroup name means, into buf: a name is a path under
 * pev_cgroup_events_root() ("/system.slice/foo.service", "foo", "/" the
 * root), as perf's -G takes it, or the absolute path of a cgroup
 * directory inside that hierarchy. Returns 0, PEV_ENOTFOUND (no such
 * cgroup: err says where it looked), PEV_EUNSUPPORTED (no hierarchy) or
 * PEV_EBADARG; err (optional) says why.
 */
PEV_API int pev_cgroup_dir(const char *name, char *buf, size_t size, struct pev_error *err);

/**
 * The id the kernel gives the cgroup at directory dir into *id: what
 * PEV_SAMPLE_CGROUP reports for its tasks (for a v2 directory) and CGROUP
 * records carry. Returns 0, or a negative errno (PEV_ENOENT: no such
 * directory; -EOPNOTSUPP: not a cgroup file system), PEV_EBADARG.
 */
PEV_API int pev_cgroup_id(const char *dir, uint64_t *id);

/**
 * The container a cgroup path belongs to, as the usual runtimes name their
 * cgroups: Docker ("/docker/ID", "docker-ID.scope"), containerd
 * ("cri-containerd-ID.scope", Kubernetes' ".../podUID/ID"), CRI-O
 * ("crio-ID.scope"), Podman ("libpod-ID.scope"): the innermost path
 * component that holds a 64-hex-digit id (conmon's scopes are not
 * containers). Writes the id (64 characters) into buf (at least 65 bytes).
 * Returns 1 when found, 0 when the path names no container (buf ""), or
 * PEV_EBADARG.
 */
PEV_API int pev_cgroup_container_id(const char *path, char *buf, size_t size);

/** A table of cgroup ids to their paths (as CGROUP records give them: "/a/b"). Opaque. */
struct pev_cgroup_names;

/** A new empty table into *out. Returns 0, PEV_EBADARG or PEV_ENOMEM. Free with pev_cgroup_names_free(). */
PEV_API int pev_cgroup_names_new(struct pev_cgroup_names **out);

/** Frees the table and its copies of the paths. NULL is ignored. */
PEV_API void pev_cgroup_names_free(struct pev_cgroup_names *names);

/**
 * Records that id names path (copied; a later call for the same id
 * replaces it, as a CGROUP record for a reused id would). Returns 0,
 * PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_cgroup_names_add(struct pev_cgroup_names *names, uint64_t id, const char *path);

/**
 * Adds every cgroup of the unified hierarchy mounted at root (NULL: find
 * it), each with its path from the root ("/" for the root itself). Returns
 * how many were added, or a negative code (PEV_EUNSUPPORTED: no
 * hierarchy, PEV_ENOMEM, PEV_EBADARG). Directories that vanish during the walk are
 * skipped.
 */
PEV_API int pev_cgroup_names_scan(struct pev_cgroup_names *names, const char *root);

/** The path of id, or NULL when the table has none (valid until the table changes). */
PEV_API const char *pev_cgroup_names_find(const struct pev_cgroup_names *names, uint64_t id);

/** How many ids the table holds (0 for NULL). */
PEV_API size_t pev_cgroup_names_count(const struct pev_cgroup_names *names);

/**
 * Entry i (0 .. count - 1, in the order added) into *id and *path (either
 * may be NULL). Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_cgroup_names_at(const struct pev_cgroup_names *names, size_t i, uint64_t *id,
				const char **path);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_CGROUP_H */
