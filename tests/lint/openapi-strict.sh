#!/usr/bin/env bash
# proto/openapi.yaml read strictly, for the mistakes YAML lets through and
# Spectral does not report: a duplicate key; an unquoted flow mapping cut at
# a comma ({ description: k, the commit order } makes "the commit order" a
# key with no value); any key of a Schema object that is not a JSON Schema
# 2020-12 / OpenAPI 3.1 keyword (or x-*). PyYAML from deploy/install-deps
# (python3-yaml). The same checks run on a broken copy first, so a checker
# that accepts everything fails too.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import yaml' 2>/dev/null; then PY=$py; break; fi
done
[ -n "$PY" ] || { echo "openapi-strict.sh: no python3 with PyYAML (deploy/install-deps installs python3-yaml)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/check.py" <<'PY'
import sys, yaml

SCHEMA_KEYS = {
    # JSON Schema 2020-12: core, applicator, validation, meta-data, format, content
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$defs", "$comment",
    "$vocabulary", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
    "prefixItems", "items", "contains", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
    "dependentRequired", "title", "description", "default", "deprecated", "readOnly",
    "writeOnly", "examples", "format", "contentEncoding", "contentMediaType", "contentSchema",
    # OpenAPI 3.1 Schema Object
    "discriminator", "xml", "externalDocs", "example",
}
SUBSCHEMA = {"items", "not", "if", "then", "else", "contains", "additionalProperties",
             "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "dependentSchemas"}
SCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
VALUES = {"const", "default", "example", "examples", "enum"}  # anything goes inside

class Strict(yaml.SafeLoader):
    pass

def mapping(loader, node, deep=False):
    seen = set()
    for k, _ in node.value:
        key = loader.construct_object(k, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, "duplicate key %r" % key, k.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep)
Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)

errors = []
def schema(s, where):
    if isinstance(s, bool):
        return
    if not isinstance(s, dict):
        errors.append("%s: a schema must be an object, got %r" % (where, s)); return
    for k, v in s.items():
        if k not in SCHEMA_KEYS and not str(k).startswith("x-"):
            errors.append("%s: %r is not a schema keyword (a flow mapping cut at a comma?)" % (where, k))
        if v is None and k not in VALUES:
            errors.append("%s/%s: no value" % (where, k))
    for k in SUBSCHEMA & s.keys():
        schema(s[k], where + "/" + k)
    for k in SCHEMA_MAPS & s.keys():
        for name, sub in (s[k] or {}).items():
            schema(sub, "%s/%s/%s" % (where, k, name))
    for k in SCHEMA_LISTS & s.keys():
        for i, sub in enumerate(s[k] or []):
            schema(sub, "%s/%s/%d" % (where, k, i))

def walk(n, where):
    """Every Schema object of the document, and no key anywhere without a value."""
    if isinstance(n, dict):
        for k, v in n.items():
            here = "%s/%s" % (where, k)
            if v is None:
                errors.append("%s: no value (a flow mapping cut at a comma?)" % here)
            elif k == "schema":
                schema(v, here)
            elif k == "schemas" and where.endswith("/components"):
                for name, sub in v.items():
                    schema(sub, "%s/%s" % (here, name))
            elif k not in VALUES:
                walk(v, here)
    elif isinstance(n, list):
        for i, v in enumerate(n):
            walk(v, "%s/%d" % (where, i))

try:
    doc = yaml.load(open(sys.argv[1], encoding="utf-8"), Loader=Strict)
except yaml.YAMLError as e:
    print("%s: %s" % (sys.argv[1], e)); sys.exit(1)
walk(doc, "#")
for e in errors:
    print("%s: %s" % (sys.argv[1], e))
sys.exit(1 if errors else 0)
PY

# The checker must catch a cut description and a duplicate key.
sed '0,/^        H: { type: integer }$/s//        H: { type: integer, description: rows, then columns }/' \
    proto/openapi.yaml >"$tmp/cut.yaml"
cmp -s proto/openapi.yaml "$tmp/cut.yaml" && { echo "openapi-strict.sh: could not make the broken copy" >&2; exit 1; }
if "$PY" "$tmp/check.py" "$tmp/cut.yaml" >"$tmp/out"; then
    echo "openapi-strict.sh: a cut description went unnoticed" >&2; exit 1
fi
grep -q "'then columns' is not a schema keyword" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
printf 'a: 1\na: 2\n' >"$tmp/dup.yaml"
if "$PY" "$tmp/check.py" "$tmp/dup.yaml" >/dev/null; then
    echo "openapi-strict.sh: a duplicate key went unnoticed" >&2; exit 1
fi
"$PY" "$tmp/check.py" proto/openapi.yaml
