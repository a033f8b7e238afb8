/* SPDX-License-Identifier: MIT */
/*
 * report_dl.c - the libraries two report formats need, loaded on first
 * use with dlopen: libprotobuf-c (pprof, OTLP) and libjson-c (JSON). A machine
 * without one of them loses that format only, with a message naming the
 * library and the package that has it.
 *
 * The code protoc-c generates calls protobuf-c through the names
 * pprof_shim.h gives it (pev__pb_*); they are defined here and forward to
 * the loaded library.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "core/error_internal.h"
#include "report/report_dl.h"

#define PROTOBUF_C_SONAME "libprotobuf-c.so.1"
#define JSON_C_SONAME "libjson-c.so.5"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Test seam: other sonames to load (NULL: the real ones). */
static const char *pb_soname, *json_soname;

static struct {
	bool tried, ok;
	char why[256];
	__typeof__(protobuf_c_message_get_packed_size) *get_packed_size;
	__typeof__(protobuf_c_message_pack) *pack;
	__typeof__(protobuf_c_message_pack_to_buffer) *pack_to_buffer;
	__typeof__(protobuf_c_message_unpack) *unpack;
	__typeof__(protobuf_c_message_free_unpacked) *free_unpacked;
} pb;

static struct {
	bool tried, ok;
	char why[256];
	struct pev__jsonc fn;
} js;

void pev__report_dl_names(const char *protobuf_c, const char *json_c)
{
	pthread_mutex_lock(&lock);
	pb_soname = protobuf_c;
	json_soname = json_c;
	/* Loaded handles stay loaded; the next use looks again under the new names. */
	memset(&pb, 0, sizeof(pb));
	memset(&js, 0, sizeof(js));
	pthread_mutex_unlock(&lock);
}

/* dlopen + dlsym of each name; false with why filled on the first failure. */
static bool load(const char *soname, const char *const *names, void **slots, size_t n, char *why,
		 size_t why_size)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		pev__strlcpy(why, e ? e : soname, why_size);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		slots[i] = dlsym(h, names[i]);
		if (!slots[i]) {
			snprintf(why, why_size, "%s has no %s", soname, names[i]);
			dlclose(h);
			return false;
		}
	}
	return true;
}

static int fail(struct pev_error *err, const char *func, const char *what, const char *soname,
		const char *package, const char *why)
{
	pev__error_start(err, PEV_EUNSUPPORTED, 0, "dlopen", NULL, false);
	pev__error_msg(err, "%s: %s output needs %s, which cannot be loaded: %s", func, what,
		       soname, why);
	pev__error_hint(err, "install it (Debian: apt-get install %s)", package);
	pev__error_hint(err, "or choose another output format");
	return PEV_EUNSUPPORTED;
}

int pev__report_dl_protobuf(const char *func, struct pev_error *err)
{
	return pev__report_dl_protobuf_for(func, "pprof", err);
}

int pev__report_dl_protobuf_for(const char *func, const char *what, struct pev_error *err)
{
	static const char *const names[] = {
		"protobuf_c_message_get_packed_size", "protobuf_c_message_pack",
		"protobuf_c_message_pack_to_buffer", "protobuf_c_message_unpack",
		"protobuf_c_message_free_unpacked",
	};
	const char *soname;
	bool ok;
	char why[256];

	pthread_mutex_lock(&lock);
	soname = pb_soname ? pb_soname : PROTOBUF_C_SONAME;
	if (!pb.tried) {
		void *slots[5];
		pb.tried = true;
		pb.ok = load(soname, names, slots, 5, pb.why, sizeof(pb.why));
		if (pb.ok) {
			pb.get_packed_size = (__typeof__(pb.get_packed_size))slots[0];
			pb.pack = (__typeof__(pb.pack))slots[1];
			pb.pack_to_buffer = (__typeof__(pb.pack_to_buffer))slots[2];
			pb.unpack = (__typeof__(pb.unpack))slots[3];
			pb.free_unpacked = (__typeof__(pb.free_unpacked))slots[4];
		}
	}
	ok = pb.ok;
	pev__strlcpy(why, pb.why, sizeof(why));
	pthread_mutex_unlock(&lock);
	if (!ok)
		return fail(err, func, what, soname, "libprotobuf-c1", why);
	return 0;
}

int pev__report_dl_jsonc(const char *func, struct pev_error *err, const struct pev__jsonc **fn)
{
	static const char *const names[] = {
		"json_object_new_object",  "json_object_new_array",
		"json_object_new_string",  "json_object_new_int64",
		"json_object_new_double_s", "json_object_new_boolean",
		"json_object_object_add",  "json_object_array_add",
		"json_object_to_json_string_length", "json_object_put",
	};
	const char *soname;
	bool ok;
	char why[256];

	pthread_mutex_lock(&lock);
	soname = json_soname ? json_soname : JSON_C_SONAME;
	if (!js.tried) {
		void *slots[10];
		js.tried = true;
		js.ok = load(soname, names, slots, 10, js.why, sizeof(js.why));
		if (js.ok) {
			js.fn.new_object = (__typeof__(js.fn.new_object))slots[0];
			js.fn.new_array = (__typeof__(js.fn.new_array))slots[1];
			js.fn.new_string = (__typeof__(js.fn.new_string))slots[2];
			js.fn.new_int64 = (__typeof__(js.fn.new_int64))slots[3];
			js.fn.new_double_s = (__typeof__(js.fn.new_double_s))slots[4];
			js.fn.new_boolean = (__typeof__(js.fn.new_boolean))slots[5];
			js.fn.object_add = (__typeof__(js.fn.object_add))slots[6];
			js.fn.array_add = (__typeof__(js.fn.array_add))slots[7];
			js.fn.to_string = (__typeof__(js.fn.to_string))slots[8];
			js.fn.put = (__typeof__(js.fn.put))slots[9];
		}
	}
	ok = js.ok;
	pev__strlcpy(why, js.why, sizeof(why));
	*fn = ok ? &js.fn : NULL;
	pthread_mutex_unlock(&lock);
	if (!ok)
		return fail(err, func, "JSON", soname, "libjson-c5", why);
	return 0;
}

/* ---- what the generated protobuf-c code calls (see pprof_shim.h) ------------------------- */

/* The generated descriptors point at this as the default of string fields. */
extern const char pev__pb_empty_string[];
const char pev__pb_empty_string[] = "";

size_t pev__pb_get_packed_size(const ProtobufCMessage *message);
size_t pev__pb_pack(const ProtobufCMessage *message, uint8_t *out);
size_t pev__pb_pack_to_buffer(const ProtobufCMessage *message, ProtobufCBuffer *buffer);
ProtobufCMessage *pev__pb_unpack(const ProtobufCMessageDescriptor *descriptor,
				 ProtobufCAllocator *allocator, size_t len, const uint8_t *data);
void pev__pb_free_unpacked(ProtobufCMessage *message, ProtobufCAllocator *allocator);

/*
 * Callers reach these only after pev__report_dl_protobuf() succeeded; a
 * call before that (a bug) packs nothing and unpacks nothing.
 */
size_t pev__pb_get_packed_size(const ProtobufCMessage *message)
{
	return pb.ok ? pb.get_packed_size(message) : 0;
}

size_t pev__pb_pack(const ProtobufCMessage *message, uint8_t *out)
{
	return pb.ok ? pb.pack(message, out) : 0;
}

size_t pev__pb_pack_to_buffer(const ProtobufCMessage *message, ProtobufCBuffer *buffer)
{
	return pb.ok ? pb.pack_to_buffer(message, buffer) : 0;
}

ProtobufCMessage *pev__pb_unpack(const ProtobufCMessageDescriptor *descriptor,
				 ProtobufCAllocator *allocator, size_t len, const uint8_t *data)
{
	return pb.ok ? pb.unpack(descriptor, allocator, len, data) : NULL;
}

void pev__pb_free_unpacked(ProtobufCMessage *message, ProtobufCAllocator *allocator)
{
	if (pb.ok)
		pb.free_unpacked(message, allocator);
}
