#!/usr/bin/env python3
"""A small JSON Schema (2020-12 subset) validator, standard library only.

Supports what doc/profdb-*.schema.json use: type, const, enum, properties,
required, additionalProperties, items, prefixItems, minItems, maxItems,
minimum, maximum, pattern (Python re, unanchored as JSON Schema says), oneOf, anyOf, allOf, $ref (local "#/..." and
"file.json#/..." relative to the referring schema's directory). Unknown
keywords that would change the result raise an error, so a schema cannot
silently use something this checker ignores.

usage: schema_check.py SCHEMA.json DOCUMENT.json   (exit 0 valid, 1 invalid)
"""
import json
import os
import re
import sys

ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs", "examples", "default"}
KEYWORDS = {"type", "const", "enum", "properties", "required", "additionalProperties",
            "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum",
            "pattern", "oneOf", "anyOf", "allOf", "$ref"}


class SchemaError(Exception):
    pass


def _is_type(value, name):
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    raise SchemaError("unknown type " + name)


def _same(a, b):
    # JSON equality: booleans are not numbers.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


class Validator:
    def __init__(self, path):
        self.docs = {}
        self.root = os.path.abspath(path)
        self._load(self.root)

    def _load(self, path):
        if path not in self.docs:
            with open(path, encoding="utf-8") as f:
                self.docs[path] = json.load(f)
        return self.docs[path]

    def _resolve(self, ref, base):
        file_part, _, pointer = ref.partition("#")
        path = os.path.join(os.path.dirname(base), file_part) if file_part else base
        node = self._load(path)
        for token in [t for t in pointer.split("/") if t]:
            token = token.replace("~1", "/").replace("~0", "~")
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node, path

    def errors(self, value, schema=None, base=None, where="$"):
        """Yields one message per violation."""
        if schema is None:
            schema, base = self.docs[self.root], self.root
        if schema is True:
            return
        if schema is False:
            yield where + ": no value allowed here"
            return
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise SchemaError("unsupported keywords %s at %s" % (sorted(unknown), where))
        if "$ref" in schema:
            target, tbase = self._resolve(schema["$ref"], base)
            yield from self.errors(value, target, tbase, where)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, t) for t in types):
                yield "%s: %r is not of type %s" % (where, _short(value), "/".join(types))
                return
        if "const" in schema and not _same(value, schema["const"]):
            yield "%s: %r is not %r" % (where, _short(value), schema["const"])
        if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
            yield "%s: %r is not one of %r" % (where, _short(value), schema["enum"])
        if isinstance(value, str) and "pattern" in schema:
            if not re.search(schema["pattern"], value):
                yield "%s: %r does not match %r" % (where, _short(value), schema["pattern"])
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                yield "%s: %r < minimum %r" % (where, value, schema["minimum"])
            if "maximum" in schema and value > schema["maximum"]:
                yield "%s: %r > maximum %r" % (where, value, schema["maximum"])
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for key in schema.get("required", []):
                if key not in value:
                    yield "%s: missing required key %r" % (where, key)
            for key, item in value.items():
                if key in props:
                    yield from self.errors(item, props[key], base, "%s.%s" % (where, key))
                elif "additionalProperties" in schema:
                    yield from self.errors(item, schema["additionalProperties"], base,
                                           "%s.%s" % (where, key))
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                yield "%s: fewer than %d items" % (where, schema["minItems"])
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                yield "%s: more than %d items" % (where, schema["maxItems"])
            prefix = schema.get("prefixItems", [])
            for i, item in enumerate(value):
                sub = prefix[i] if i < len(prefix) else schema.get("items", True)
                yield from self.errors(item, sub, base, "%s[%d]" % (where, i))
        for key in ("allOf", "anyOf", "oneOf"):
            if key not in schema:
                continue
            ok = [not any(True for _ in self.errors(value, s, base, where)) for s in schema[key]]
            n = sum(ok)
            if key == "allOf" and n != len(ok):
                yield "%s: does not match allOf" % where
            if key == "anyOf" and n == 0:
                yield "%s: %r matches none of anyOf" % (where, _short(value))
            if key == "oneOf" and n != 1:
                yield "%s: %r matches %d of oneOf (need exactly 1)" % (where, _short(value), n)


def _short(v):
    s = repr(v)
    return s if len(s) < 80 else s[:77] + "..."


def validate(schema_path, document, limit=10):
    """Returns a list of at most @limit error messages ([] = valid)."""
    out = []
    for e in Validator(schema_path).errors(document):
        out.append(e)
        if len(out) >= limit:
            break
    return out


def _self_test():
    # The checker must reject what it should: a tiny schema and known-bad inputs.
    import tempfile
    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"type": "array", "maxItems": 2,
                                   "prefixItems": [{"type": "integer", "minimum": 0}],
                                   "items": {"oneOf": [{"type": "number"},
                                                       {"type": "string", "pattern": "^n[a-f]+$"}]}}}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(schema, f)
    try:
        good = [{"a": [1, 2.5]}, {"a": [0, "nab"]}, {"a": []}]
        bad = [{}, {"a": [-1]}, {"a": [1, "x"]}, {"a": [1, "nan"]}, {"a": [1, "xnab"]}, {"a": [1, 2, 3]}, {"a": [True]},
               {"a": [1], "b": 0}, {"a": "s"}]
        for g in good:
            assert not validate(f.name, g), g
        for b in bad:
            assert validate(f.name, b), b
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        _self_test()
        print("schema_check self-test passed")
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], encoding="utf-8") as f:
        doc = json.load(f)
    errs = validate(sys.argv[1], doc)
    for e in errs:
        print(e)
    sys.exit(1 if errs else 0)
