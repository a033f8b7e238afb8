#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks an OTLP profiles file that perfev wrote (report --format otlp).

    otlp_check.py [--proto-dir DIR] [--samples] FILE

FILE holds one serialized ExportProfilesServiceRequest (gzip-compressed or
not). The script compiles perfev's .proto files (DIR, default src/report
beside this script) with protoc into a temporary directory, decodes FILE
with Debian's python3-protobuf, and checks:

  - that perfev's .proto files have upstream's packages, message names and
    field numbers and types (the table UPSTREAM below, written from
    opentelemetry-proto's v1development files);
  - every rule the comments of upstream's profiles.proto state: each
    dictionary table present with its zero value at index 0, no duplicate
    and no orphaned entries, every index in range, unique attribute keys
    per message, a Sample's values and timestamps of equal length (one
    value per sample type without timestamps), one shape per profile, one
    sample per identity, timestamps within [time, time + duration), a
    function with a name, original_payload and its format together;
  - what perfev promises on top (docs/REPORT.md): locations with
    profile.frame.type "native" or "kernel", kernel frames before user ones
    in every (leaf-first) stack (resolved ones), addresses inside their mapping, build ids
    as process.executable.build_id.gnu (hex), timestamps in time order,
    service.name and the scope "perfev".

Failures go to standard error, one a line, and the exit status is 1 (2:
the file or the tools are missing). On success it prints a summary as JSON:
the resource, scope, mappings, each function's frame types and, per profile, its types, times, totals,
stacks (root first, "a;b;c", inlined functions after the function they
are in) with their summed values, and with --samples every sample.
"""

import argparse
import gzip
import importlib
import json
import os
import subprocess
import sys
import tempfile

COLLECTOR = "opentelemetry.proto.collector.profiles.v1development."
PROFILES = "opentelemetry.proto.profiles.v1development."
COMMON = "opentelemetry.proto.common.v1."
RESOURCE = "opentelemetry.proto.resource.v1."

# Upstream's messages: field -> (number, type, repeated). perfev's .proto may
# leave fields out, never change one.
UPSTREAM = {
    COMMON + "AnyValue": {
        "string_value": (1, "string", False), "bool_value": (2, "bool", False),
        "int_value": (3, "int64", False), "double_value": (4, "double", False),
        "array_value": (5, "message", False), "kvlist_value": (6, "message", False),
        "bytes_value": (7, "bytes", False), "string_value_strindex": (8, "int32", False)},
    COMMON + "KeyValue": {
        "key": (1, "string", False), "value": (2, "message", False),
        "key_strindex": (3, "int32", False)},
    COMMON + "InstrumentationScope": {
        "name": (1, "string", False), "version": (2, "string", False),
        "attributes": (3, "message", True), "dropped_attributes_count": (4, "uint32", False)},
    RESOURCE + "Resource": {
        "attributes": (1, "message", True), "dropped_attributes_count": (2, "uint32", False),
        "entity_refs": (3, "message", True)},
    PROFILES + "ProfilesDictionary": {
        "mapping_table": (1, "message", True), "location_table": (2, "message", True),
        "function_table": (3, "message", True), "link_table": (4, "message", True),
        "string_table": (5, "string", True), "attribute_table": (6, "message", True),
        "stack_table": (7, "message", True)},
    PROFILES + "ProfilesData": {
        "resource_profiles": (1, "message", True), "dictionary": (2, "message", False)},
    PROFILES + "ResourceProfiles": {
        "resource": (1, "message", False), "scope_profiles": (2, "message", True),
        "schema_url": (3, "string", False)},
    PROFILES + "ScopeProfiles": {
        "scope": (1, "message", False), "profiles": (2, "message", True),
        "schema_url": (3, "string", False)},
    PROFILES + "Profile": {
        "sample_type": (1, "message", False), "samples": (2, "message", True),
        "time_unix_nano": (3, "fixed64", False), "duration_nano": (4, "uint64", False),
        "period_type": (5, "message", False), "period": (6, "int64", False),
        "profile_id": (7, "bytes", False), "dropped_attributes_count": (8, "uint32", False),
        "original_payload_format": (9, "string", False),
        "original_payload": (10, "bytes", False), "attribute_indices": (11, "int32", True)},
    PROFILES + "Link": {"trace_id": (1, "bytes", False), "span_id": (2, "bytes", False)},
    PROFILES + "ValueType": {
        "type_strindex": (1, "int32", False), "unit_strindex": (2, "int32", False)},
    PROFILES + "Sample": {
        "stack_index": (1, "int32", False), "attribute_indices": (2, "int32", True),
        "link_index": (3, "int32", False), "values": (4, "int64", True),
        "timestamps_unix_nano": (5, "fixed64", True)},
    PROFILES + "Mapping": {
        "memory_start": (1, "uint64", False), "memory_limit": (2, "uint64", False),
        "file_offset": (3, "uint64", False), "filename_strindex": (4, "int32", False),
        "attribute_indices": (5, "int32", True)},
    PROFILES + "Stack": {"location_indices": (1, "int32", True)},
    PROFILES + "Location": {
        "mapping_index": (1, "int32", False), "address": (2, "uint64", False),
        "lines": (3, "message", True), "attribute_indices": (4, "int32", True)},
    PROFILES + "Line": {
        "function_index": (1, "int32", False), "line": (2, "int64", False),
        "column": (3, "int64", False)},
    PROFILES + "Function": {
        "name_strindex": (1, "int32", False), "system_name_strindex": (2, "int32", False),
        "filename_strindex": (3, "int32", False), "start_line": (4, "int64", False)},
    PROFILES + "KeyValueAndUnit": {
        "key_strindex": (1, "int32", False), "value": (2, "message", False),
        "unit_strindex": (3, "int32", False)},
    COLLECTOR + "ExportProfilesServiceRequest": {
        "resource_profiles": (1, "message", True), "dictionary": (2, "message", False)},
    COLLECTOR + "ExportProfilesServiceResponse": {"partial_success": (1, "message", False)},
    COLLECTOR + "ExportProfilesPartialSuccess": {
        "rejected_profiles": (1, "int64", False), "error_message": (2, "string", False)},
}

FRAME_TYPES = {"native", "kernel"}
BUILD_ID_KEY = "process.executable.build_id.gnu"

failures = []


def fail(msg):
    failures.append(msg)


def protobuf_c_include():
    """The directory that holds protobuf-c/protobuf-c.proto (libprotobuf-c-dev),
    which perfev's .proto files import for their C names."""
    for d in ("/usr/include", "/usr/local/include"):
        if os.path.exists(os.path.join(d, "protobuf-c", "protobuf-c.proto")):
            return d
    raise OSError("no protobuf-c/protobuf-c.proto (Debian: libprotobuf-c-dev)")


def load_modules(proto_dir, tmp):
    protos = sorted(f for f in os.listdir(proto_dir)
                    if f.startswith("otlp_") and f.endswith(".proto"))
    subprocess.run(["protoc", "-I", proto_dir, "-I", protobuf_c_include(),
                    "--python_out=" + tmp, "protobuf-c/protobuf-c.proto"]
                   + [os.path.join(proto_dir, f) for f in protos], check=True)
    sys.path.insert(0, tmp)
    return {f[:-6]: importlib.import_module(f[:-6] + "_pb2") for f in protos}


def check_descriptors(mods):
    from google.protobuf.descriptor import FieldDescriptor as FD
    names = {FD.TYPE_STRING: "string", FD.TYPE_BOOL: "bool", FD.TYPE_INT64: "int64",
             FD.TYPE_INT32: "int32", FD.TYPE_UINT32: "uint32", FD.TYPE_UINT64: "uint64",
             FD.TYPE_FIXED64: "fixed64", FD.TYPE_DOUBLE: "double", FD.TYPE_BYTES: "bytes",
             FD.TYPE_MESSAGE: "message"}
    seen = set()
    for m in mods.values():
        for d in m.DESCRIPTOR.message_types_by_name.values():
            seen.add(d.full_name)
            want = UPSTREAM.get(d.full_name)
            if want is None:
                fail(f"proto: message {d.full_name} is not upstream's")
                continue
            for f in d.fields:
                w = want.get(f.name)
                got = (f.number, names.get(f.type, str(f.type)), f.label == FD.LABEL_REPEATED)
                if w != got:
                    fail(f"proto: {d.full_name}.{f.name} is {got}, upstream has {w}")
    for need in (COLLECTOR + "ExportProfilesServiceRequest", PROFILES + "Profile"):
        if need not in seen:
            fail(f"proto: no message {need}")


def key_of(msg):
    return msg.SerializeToString(deterministic=True)


def any_value(v):
    kind = v.WhichOneof("value")
    return None if kind is None else getattr(v, kind)


def check(req, want_samples):
    d = req.dictionary
    st = list(d.string_table)
    tables = {
        "mapping_table": d.mapping_table, "location_table": d.location_table,
        "function_table": d.function_table, "link_table": d.link_table,
        "attribute_table": d.attribute_table, "stack_table": d.stack_table,
    }
    # Zero values at index 0, no duplicates.
    if not st or st[0] != "":
        fail('string_table[0] is not "" (or missing)')
    if len(set(st)) != len(st):
        dup = sorted({s for s in st if st.count(s) > 1})
        fail(f"string_table holds duplicates: {dup[:5]}")
    for name, t in tables.items():
        if len(t) == 0:
            fail(f"{name} is empty: its zero value must be at index 0")
            continue
        if name == "link_table":
            z = t[0]
            if z.trace_id.strip(b"\0") or z.span_id.strip(b"\0"):
                fail("link_table[0] is not a zero link")
            if len(z.trace_id) != 16 or len(z.span_id) != 8:
                fail("link_table[0] should hold 16 and 8 zero bytes")
        elif t[0].ByteSize() != 0:
            fail(f"{name}[0] is not the zero value: {t[0]}")
        keys = [key_of(x) for x in t]
        if name == "link_table":
            keys[0] = b""  # the 16/8 zero bytes are the zero value too
        if len(set(keys)) != len(keys):
            fail(f"{name} holds duplicate entries")

    def idx(i, table, what, zero_ok=True):
        n = len(st) if table == "string_table" else len(tables[table])
        if i < 0 or i >= n:
            fail(f"{what}: index {i} out of range of {table} ({n} entries)")
            return False
        if i == 0 and not zero_ok:
            fail(f"{what}: index 0 (the zero value) where an entry is needed")
            return False
        return True

    used = {k: set() for k in list(tables) + ["string_table"]}

    def s(i, what):
        used["string_table"].add(i)
        return st[i] if idx(i, "string_table", what) else None

    def attrs(indices, what):
        out = {}
        for i in indices:
            used["attribute_table"].add(i)
            if not idx(i, "attribute_table", what, zero_ok=False):
                continue
            a = d.attribute_table[i]
            k = s(a.key_strindex, what + " key")
            if a.unit_strindex:
                s(a.unit_strindex, what + " unit")
            if not k:
                fail(f"{what}: attribute {i} has no key")
            if k in out:
                fail(f"{what}: key {k} twice in one message's attribute_indices")
            if not a.HasField("value") or a.value.WhichOneof("value") is None:
                fail(f"{what}: attribute {k} has no value")
            out[k] = any_value(a.value)
        return out

    # Attribute table entries: keys and values.
    for i, a in enumerate(d.attribute_table):
        if i and a.key_strindex:
            s(a.key_strindex, f"attribute_table[{i}]")

    # Mappings.
    maps = []
    for i, m in enumerate(d.mapping_table):
        if i == 0:
            continue
        fn = s(m.filename_strindex, f"mapping {i} filename")
        if not fn:
            fail(f"mapping {i} has no file name")
        if m.memory_start > m.memory_limit:
            fail(f"mapping {i} ({fn}) starts after its limit")
        a = attrs(m.attribute_indices, f"mapping {i}")
        bid = a.get(BUILD_ID_KEY)
        for k in a:
            if k != BUILD_ID_KEY:
                fail(f"mapping {i}: unexpected attribute {k}")
        if bid is not None and (not isinstance(bid, str) or not bid or
                                any(c not in "0123456789abcdef" for c in bid)):
            fail(f"mapping {i}: build id {bid!r} is not lowercase hex")
        maps.append({"index": i, "filename": fn, "start": m.memory_start,
                     "limit": m.memory_limit, "offset": m.file_offset, "build_id": bid})

    # Functions.
    fnames = {}
    for i, f in enumerate(d.function_table):
        if i == 0:
            continue
        n = s(f.name_strindex, f"function {i} name")
        sn = s(f.system_name_strindex, f"function {i} system name")
        fl = s(f.filename_strindex, f"function {i} file")
        if not (f.name_strindex or f.system_name_strindex or f.filename_strindex):
            fail(f"function {i} has no name, system name nor file")
        fnames[i] = n or sn or fl

    # Locations.
    loc = {}
    for i, l in enumerate(d.location_table):
        if i == 0:
            continue
        if idx(l.mapping_index, "mapping_table", f"location {i}") and l.mapping_index:
            used["mapping_table"].add(l.mapping_index)
            m = d.mapping_table[l.mapping_index]
            if not (m.memory_start <= l.address <= m.memory_limit):
                fail(f"location {i}: address {l.address:#x} outside its mapping "
                     f"[{m.memory_start:#x}, {m.memory_limit:#x}]")
        a = attrs(l.attribute_indices, f"location {i}")
        ft = a.get("profile.frame.type")
        if ft not in FRAME_TYPES:
            fail(f"location {i}: profile.frame.type is {ft!r}, not one of {sorted(FRAME_TYPES)}")
        names = []
        for j, line in enumerate(l.lines):
            used["function_table"].add(line.function_index)
            if idx(line.function_index, "function_table", f"location {i} line {j}",
                   zero_ok=False):
                names.append(fnames.get(line.function_index))
            if line.line < 0 or line.column < 0:
                fail(f"location {i} line {j}: a negative line or column")
        # lines: innermost first; a folded stack wants the outermost first
        loc[i] = {"names": list(reversed(names)) if names else [f"{l.address:#x}"],
                  "type": ft}

    # Stacks: valid locations, leaf first (kernel frames before user ones).
    stacks = {}
    for i, k in enumerate(d.stack_table):
        if i == 0:
            continue
        types = []
        for j in k.location_indices:
            used["location_table"].add(j)
            if idx(j, "location_table", f"stack {i}", zero_ok=False):
                # an unresolved address (a frame-pointer chain gone astray in code
                # without frame pointers) may look like a kernel one: not counted
                if d.location_table[j].lines:
                    types.append(loc[j]["type"])
        if "native" in types and "kernel" in types[types.index("native"):]:
            fail(f"stack {i}: a kernel function after a user one (not leaf first?): {types}")
        names = []
        for j in reversed(k.location_indices):  # root first
            if j in loc:
                names.extend(loc[j]["names"])
        stacks[i] = ";".join(names)
    stacks[0] = ""

    # The resource and scopes.
    frame_types = {}
    for v in loc.values():
        for n in v["names"]:
            frame_types.setdefault(n, set()).add(v["type"])
    out = {"resource": {}, "scopes": [], "mappings": maps, "profiles": [],
           "tables": {n: len(t) for n, t in tables.items()},
           "frame_types": {n: ",".join(sorted(t)) for n, t in frame_types.items()}}
    out["tables"]["string_table"] = len(st)
    if len(req.resource_profiles) == 0:
        fail("no resource_profiles")
    for rp in req.resource_profiles:
        ra = {}
        for kv in rp.resource.attributes:
            if kv.key in ra:
                fail(f"resource: key {kv.key} twice")
            ra[kv.key] = any_value(kv.value)
        if "service.name" not in ra:
            fail("resource: no service.name")
        out["resource"] = ra
        for sp in rp.scope_profiles:
            out["scopes"].append({"name": sp.scope.name, "version": sp.scope.version})
            if sp.scope.name != "perfev" or not sp.scope.version:
                fail(f"scope is {sp.scope.name!r} {sp.scope.version!r}, not perfev's")
            for pi, p in enumerate(sp.profiles):
                out["profiles"].append(check_profile(p, pi, d, s, idx, attrs, used, stacks,
                                                     want_samples))

    # Orphans: entries nothing refers to (index 0 aside).
    for name in used:
        n = len(st) if name == "string_table" else len(tables[name])
        orphans = sorted(set(range(1, n)) - used[name])
        if name == "link_table":
            continue
        if orphans:
            fail(f"{name}: entries nothing refers to: {orphans[:10]}")
    return out


def check_profile(p, pi, d, s, idx, attrs, used, stacks, want_samples):
    what = f"profile {pi}"
    if not p.HasField("sample_type"):
        fail(f"{what}: no sample_type")
    typ = s(p.sample_type.type_strindex, what + " sample type")
    unit = s(p.sample_type.unit_strindex, what + " sample unit")
    if not typ or not unit:
        fail(f"{what}: sample type {typ!r}/{unit!r} incomplete")
    ptyp = s(p.period_type.type_strindex, what + " period type")
    punit = s(p.period_type.unit_strindex, what + " period unit")
    if typ == "off_cpu" and unit != "nanoseconds":
        fail(f"{what}: off_cpu in {unit}")
    if bool(p.original_payload_format) != bool(p.original_payload):
        fail(f"{what}: original_payload and its format not set together")
    if p.profile_id and (len(p.profile_id) != 16 or not p.profile_id.strip(b"\0")):
        fail(f"{what}: profile_id is not 16 bytes, not all zero")
    pattrs = attrs(p.attribute_indices, what)
    lo, hi = p.time_unix_nano, p.time_unix_nano + p.duration_nano
    shapes = set()
    identities = set()
    total = 0
    obs = 0
    folded = {}
    samples = []
    for si, x in enumerate(p.samples):
        sw = f"{what} sample {si}"
        used["stack_table"].add(x.stack_index)
        idx(x.stack_index, "stack_table", sw)
        a = attrs(x.attribute_indices, sw)
        if x.link_index:
            used["link_table"].add(x.link_index)
            idx(x.link_index, "link_table", sw)
        ident = (x.stack_index, frozenset(x.attribute_indices), x.link_index)
        if ident in identities:
            fail(f"{sw}: the same stack, attributes and link as an earlier sample")
        identities.add(ident)
        nv, nt = len(x.values), len(x.timestamps_unix_nano)
        if nv == 0 and nt == 0:
            fail(f"{sw}: neither values nor timestamps")
        if nv and nt and nv != nt:
            fail(f"{sw}: {nv} values but {nt} timestamps")
        if not nt and nv != 1:
            fail(f"{sw}: {nv} values for one sample type")
        shapes.add((nv > 0, nt > 0))
        ts = list(x.timestamps_unix_nano)
        for t in ts:
            if not (lo <= t < hi):
                fail(f"{sw}: timestamp {t} outside [{lo}, {hi})")
        if ts != sorted(ts):
            fail(f"{sw}: timestamps out of time order")
        v = sum(x.values) if nv else nt
        total += v
        obs += nt if nt else 1
        key = stacks.get(x.stack_index, "?")
        folded[key] = folded.get(key, 0) + v
        if want_samples:
            samples.append({"stack": key, "attributes": a, "values": list(x.values),
                            "timestamps": ts})
    if len(shapes) > 1:
        fail(f"{what}: samples of different shapes {sorted(shapes)}")
    out = {"type": typ, "unit": unit, "period_type": ptyp, "period_unit": punit,
           "period": p.period, "time": p.time_unix_nano, "duration": p.duration_nano,
           "attributes": pattrs, "samples": len(p.samples), "observations": obs,
           "timed": any(t for _, t in shapes), "total": total, "stacks": folded}
    if want_samples:
        out["sample_list"] = samples
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proto-dir",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "src", "report"))
    ap.add_argument("--samples", action="store_true", help="list every sample")
    ap.add_argument("file")
    a = ap.parse_args()
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        print("otlp_check: python3-protobuf is not installed", file=sys.stderr)
        return 2
    try:
        with open(a.file, "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"otlp_check: {e}", file=sys.stderr)
        return 2
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    with tempfile.TemporaryDirectory(prefix="otlp_check.") as tmp:
        try:
            mods = load_modules(a.proto_dir, tmp)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"otlp_check: protoc failed on {a.proto_dir}: {e}", file=sys.stderr)
            return 2
        check_descriptors(mods)
        req = mods["otlp_service"].ExportProfilesServiceRequest()
        try:
            req.ParseFromString(data)
        except Exception as e:  # DecodeError, and UTF-8 errors of strings
            print(f"otlp_check: {a.file} does not decode: {e}", file=sys.stderr)
            return 1
        if req.SerializeToString(deterministic=True) != data:
            # unknown fields or another order: fine for protobuf, but perfev writes neither
            fail("re-encoding gives other bytes (unknown fields, or fields out of order)")
        summary = check(req, a.samples)
    for f in failures:
        print("otlp_check: " + f, file=sys.stderr)
    if failures:
        return 1
    json.dump(summary, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
