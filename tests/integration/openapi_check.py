"""openapi_check.py — holds a running billboardd to the spec it serves.

    python3 openapi_check.py URL ADMIN_TOKEN DB MAX_BODY "EXAMPLE FLAGS"

Fetches GET /v1/openapi.json from the daemon at URL (started with the
spec's `x-example-daemon` flags, given as the last argument, and
--max-body MAX_BODY, on the SQLite file DB) and sends, with curl:

  1. every example request body of the spec to its route, with the
     operation's auth (the admin token, or the token of a clinic enrolled
     here) and a fresh Idempotency-Key; each must get exactly its
     `x-expected-status` (and its `x-expected-pointer` on a 422);
  2. per operation, the requests that provoke each kind of answer the
     daemon has: the good request, If-None-Match with the ETag (304), no or
     a wrong or the other role's token (401), bad JSON (400), a missing
     required header (400), another media type (415), a body over the cap
     (413), an Idempotency-Key replayed and then reused with another body
     (409), a path parameter that names nothing (404);
  3. last, with the database's write lock held by another connection past
     the daemon's busy timeout, every operation that documents 503, on one
     keep-alive connection: the first write fails in storage and the
     daemon, stopping, answers the rest 503 too.

Every answer must be a status the spec documents for its operation (an
error as problem+json with that status), and at the end every status the
spec documents for an operation must have been answered at least once.
Prints each failure and exits 1 if there was any.
"""
import json
import sqlite3
import subprocess
import sys
import tempfile

URL, ADMIN, DB, MAX_BODY, FLAGS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
TMP = tempfile.mkdtemp()
failures = []
observed = {}  # (METHOD, path) -> set of statuses answered
counter = [0]


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def fresh(prefix):
    counter[0] += 1
    return f"{prefix}-{counter[0]}"


class Req:
    """One request: method, spec path, concrete path, headers, body bytes."""

    def __init__(self, method, path, url_path, headers=None, body=None, why=""):
        self.method, self.path, self.url_path = method, path, url_path
        self.headers = dict(headers or {})
        self.body = body
        self.why = why

    def args(self, n):
        """curl arguments for this request, writing to files numbered n."""
        a = ["-s", "--max-time", "60", "-X", self.method, URL + self.url_path,
             "-D", f"{TMP}/h{n}", "-o", f"{TMP}/b{n}", "-w", "%{http_code} %{num_connects}\\n"]
        for k, v in self.headers.items():
            a += ["-H", f"{k}: {v}"]
        if self.body is not None:
            with open(f"{TMP}/in{n}", "wb") as f:
                f.write(self.body)
            a += ["--data-binary", f"@{TMP}/in{n}"]
        return a


class Resp:
    def __init__(self, status, headers, body, connects):
        self.status, self.headers, self.body, self.connects = status, headers, body, connects

    def json(self):
        return json.loads(self.body)


def read_resp(n, status, connects):
    headers = {}
    try:
        with open(f"{TMP}/h{n}", encoding="latin-1") as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
        with open(f"{TMP}/b{n}", "rb") as f:
            body = f.read()
    except FileNotFoundError:
        body = b""
    return Resp(status, headers, body, connects)


def send_all(reqs):
    """Sends reqs in order on one curl (one connection, kept alive)."""
    args = ["curl"]
    for i, r in enumerate(reqs):
        if i:
            args.append("--next")
        args += r.args(i)
    out = subprocess.run(args, capture_output=True, text=True).stdout.split("\n")
    resps = []
    for i, r in enumerate(reqs):
        fields = out[i].split() if i < len(out) else []
        status = int(fields[0]) if fields else 0
        connects = int(fields[1]) if len(fields) > 1 else -1
        resp = read_resp(i, status, connects)
        check(r, resp)
        resps.append(resp)
    return resps


def send(req):
    return send_all([req])[0]


def documented(method, path):
    return {int(c) for c in spec["paths"][path][method.lower()]["responses"] if c.isdigit()}


def check(req, resp):
    """Every answer: a documented status; an error is problem+json."""
    observed.setdefault((req.method, req.path), set()).add(resp.status)
    where = f"{req.method} {req.path} ({req.why})"
    if resp.status not in documented(req.method, req.path):
        fail(f"{where}: answered {resp.status}, which the spec does not document: {resp.body[:300]!r}")
        return
    if resp.status >= 400:
        ct = resp.headers.get("content-type", "")
        try:
            p = resp.json()
            ok = ct == "application/problem+json" and p.get("status") == resp.status
        except ValueError:
            ok = False
        if not ok:
            fail(f"{where}: {resp.status} is not problem+json with that status: {ct} {resp.body[:300]!r}")
        if resp.status == 401 and resp.headers.get("www-authenticate") != "Bearer":
            fail(f"{where}: 401 without WWW-Authenticate: Bearer")


def expect(req, status, pointer=None):
    resp = send(req)
    if resp.status != status:
        fail(f"{req.method} {req.path} ({req.why}): expected {status}, got {resp.status}: {resp.body[:300]!r}")
    elif pointer is not None and resp.json().get("pointer") != pointer:
        fail(f"{req.method} {req.path} ({req.why}): pointer {resp.json().get('pointer')!r}, expected {pointer!r}")
    return resp


# ---- what a good request of each operation is ----

def operations():
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options"):
                yield method.upper(), path, op


def token_for(op, other_role=False):
    """The bearer token the operation asks for (or, with other_role, the other
    party's valid token); None if it needs none."""
    reqs = op.get("security", spec.get("security", []))
    schemes = {name for r in reqs for name in r}
    if not schemes:
        return None
    if schemes == {"adminToken"}:
        return clinic_token if other_role else ADMIN
    if schemes == {"clinicToken"}:
        return ADMIN if other_role else clinic_token
    fail(f"security {sorted(schemes)}: openapi_check.py knows adminToken and clinicToken only")
    return None


def enrol(name):
    r = Req("POST", "/v1/clinics", "/v1/clinics",
            {"Authorization": f"Bearer {ADMIN}", "Content-Type": "application/json"},
            json.dumps({"name": name}).encode(), "enrol a clinic the test uses")
    resp = expect(r, 201)
    return resp.json() if resp.status == 201 else {"id": 0, "token": "none"}


def path_value(name):
    """A value of path parameter {name} that exists."""
    if name == "version":
        return "0"  # billboard 0 exists from the first start
    if name == "id":
        return str(enrol(fresh("clinic to revoke"))["id"])
    fail(f"path parameter {{{name}}}: openapi_check.py does not know a good value; add one")
    return "0"


def params(op, where):
    return [p for p in op.get("parameters", []) if p.get("in") == where]


def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        parts = node["$ref"].lstrip("#/").split("/")
        node = spec
        for p in parts:
            node = node[p]
    return node


def build(method, path, op, why, body=None, token="default", path_values=None, skip_header=None):
    """A request of the operation: its token, its required headers (a fresh
    Idempotency-Key), path parameters that exist, and body (bytes) if given."""
    url_path = path
    for p in (resolve(x) for x in params(op, "path")):
        v = (path_values or {}).get(p["name"]) or path_value(p["name"])
        url_path = url_path.replace("{" + p["name"] + "}", v)
    headers = {}
    tok = token_for(op) if token == "default" else token
    if tok is not None:
        headers["Authorization"] = f"Bearer {tok}"
    for p in (resolve(x) for x in params(op, "header")):
        if not p.get("required") or p["name"] == skip_header:
            continue
        if p["name"] == "Idempotency-Key":
            headers["Idempotency-Key"] = fresh("key")
        else:
            fail(f"{method} {path}: required header {p['name']}: openapi_check.py cannot fill it")
    if body is not None:
        headers["Content-Type"] = "application/json"
    return Req(method, path, url_path, headers, body, why)


def examples(method, path, op):
    """The operation's request examples as (name, example object)."""
    rb = resolve(op.get("requestBody"))
    if not rb:
        return []
    media = rb.get("content", {}).get("application/json")
    if not media or not media.get("examples"):
        fail(f"{method} {path}: a request body without examples")
        return []
    return list(media["examples"].items())


def good_body(method, path, op):
    """The bytes of the operation's 2xx example, or None if it takes no body."""
    for name, ex in examples(method, path, op):
        if 200 <= ex.get("x-expected-status", 0) < 300:
            return json.dumps(ex["value"]).encode()
    return None


def success(method, path):
    codes = sorted(c for c in documented(method, path) if 200 <= c < 300)
    if len(codes) != 1:
        fail(f"{method} {path}: documents {len(codes)} success statuses; the test expects one")
    return codes[0] if codes else 200


# ---- the run ----

got = subprocess.run(["curl", "-sf", "--max-time", "60", URL + "/v1/openapi.json"],
                     capture_output=True, check=False)
if got.returncode != 0:
    sys.exit(f"GET /v1/openapi.json failed (curl exit {got.returncode})")
spec = json.loads(got.stdout)
if spec.get("x-example-daemon") != FLAGS:
    fail(f"the daemon runs with {FLAGS!r}, the served spec's x-example-daemon is {spec.get('x-example-daemon')!r}")

clinic_token = enrol("the test's clinic")["token"]
ops = list(operations())

# 1. Every example request body gets exactly its documented status.
for method, path, op in ops:
    exs = examples(method, path, op)
    if exs and not any(200 <= ex.get("x-expected-status", 0) < 300 for _, ex in exs):
        fail(f"{method} {path}: no example with a 2xx x-expected-status")
    for name, ex in exs:
        status = ex.get("x-expected-status")
        if not isinstance(status, int) or status not in documented(method, path):
            fail(f"{method} {path} example {name}: x-expected-status {status!r} is not a documented status")
            continue
        if "value" not in ex:
            fail(f"{method} {path} example {name}: no value")
            continue
        r = build(method, path, op, f"example {name}", body=json.dumps(ex["value"]).encode())
        expect(r, status, ex.get("x-expected-pointer"))

# 2. Every other kind of answer, provoked per operation.
for method, path, op in ops:
    body = good_body(method, path, op)
    codes = documented(method, path)
    ok = success(method, path)
    good = expect(build(method, path, op, "the good request", body=body), ok)
    if 304 in codes:
        etag = good.headers.get("etag")
        if not etag:
            fail(f"{method} {path}: documents 304 but its {good.status} has no ETag")
        else:
            r = build(method, path, op, "If-None-Match with its ETag", body=body)
            r.headers["If-None-Match"] = etag
            nm = expect(r, 304)
            if nm.status == 304 and nm.headers.get("etag") != etag:
                fail(f"{method} {path}: 304 with ETag {nm.headers.get('etag')!r}, not {etag!r}")
    if token_for(op) is not None:
        expect(build(method, path, op, "no token", body=body, token=None), 401)
        expect(build(method, path, op, "a wrong token", body=body, token="bbt_wrong"), 401)
        expect(build(method, path, op, "the other role's token", body=body,
                     token=token_for(op, other_role=True)), 403 if 403 in codes else 401)
    if body is not None:
        expect(build(method, path, op, "a body that is not JSON", body=b'{"steps": ['), 400)
        r = build(method, path, op, "Content-Type text/plain", body=body)
        r.headers["Content-Type"] = "text/plain"
        expect(r, 415)
        big = b'{"pad": "' + b"x" * MAX_BODY + b'"}'
        expect(build(method, path, op, "a body over --max-body", body=big), 413)
    for p in (resolve(x) for x in params(op, "header")):
        if p.get("required"):
            expect(build(method, path, op, f"without {p['name']}", body=body, skip_header=p["name"]), 400)
    if any(resolve(p)["name"] == "Idempotency-Key" for p in params(op, "header")):
        first = build(method, path, op, "a new Idempotency-Key", body=body)
        a = expect(first, ok)
        replay = Req(method, path, first.url_path, first.headers, body, "the same key and body again")
        b = expect(replay, ok)
        if b.headers.get("idempotent-replayed") != "true" or b.body != a.body:
            fail(f"{method} {path}: a replay is not the stored answer with Idempotent-Replayed: true")
        other = Req(method, path, first.url_path, first.headers, body + b" ", "the same key, another body")
        expect(other, 409)
    for p in (resolve(x) for x in params(op, "path")):
        r = build(method, path, op, f"{{{p['name']}}} naming nothing", body=body,
                  path_values={p["name"]: "999999"})
        expect(r, 404)

# 3. 503: storage fails under a write; writes first so that one fails in storage.
late = [(m, p, op) for m, p, op in ops if 503 in documented(m, p)]
late.sort(key=lambda x: x[0] == "GET")
if late:
    reqs = [build(m, p, op, "storage failed", body=good_body(m, p, op)) for m, p, op in late]
    lock = sqlite3.connect(DB, isolation_level=None, timeout=30)
    lock.execute("BEGIN EXCLUSIVE")
    lock.execute("INSERT INTO meta(key, value) VALUES ('openapi-check-lock', 1)")
    resps = send_all(reqs)
    lock.execute("ROLLBACK")
    lock.close()
    for r, resp in zip(reqs, resps):
        if resp.status != 503:
            fail(f"{r.method} {r.path} (storage failed): expected 503, got {resp.status} "
                 f"(connections opened: {resp.connects}): {resp.body[:300]!r}")

# Every documented status was answered at least once.
for method, path, op in ops:
    missing = documented(method, path) - observed.get((method, path), set())
    if missing:
        fail(f"{method} {path}: documents {sorted(missing)} but no request here got them")

n = sum(len(v) for v in observed.values())
print(f"{len(ops)} operations, {n} (operation, status) pairs answered, {len(failures)} failures")
sys.exit(1 if failures else 0)
