# SPDX-License-Identifier: MIT
"""strict_json.py FILE...: each FILE ('-': stdin) must be one JSON text as RFC 8259 has it, in
well-formed UTF-8. Python's own json.load is lenient where this is not: it decodes bytes with
'surrogatepass' (UTF-8-encoded surrogates pass), takes NaN and Infinity, lets a repeated key
win silently, and keeps a lone surrogate escape (\\ud800) as a string. Prints one line per FILE:
"FILE: ok" or "FILE: <why not>"; exits 1 when any is not."""
import json
import sys


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key repeats in one object")
    return dict(pairs)


def check_strings(value):
    if isinstance(value, str):
        value.encode("utf-8")  # a lone surrogate from an escape raises here
    elif isinstance(value, dict):
        for k, v in value.items():
            check_strings(k)
            check_strings(v)
    elif isinstance(value, list):
        for v in value:
            check_strings(v)


def check(data):
    text = data.decode("utf-8")  # strict: overlong forms, surrogates, stray bytes raise
    value = json.loads(text, parse_constant=reject_constant, object_pairs_hook=unique_keys)
    check_strings(value)
    return value


def main():
    failed = 0
    for path in sys.argv[1:]:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        try:
            check(data)
            print(path + ": ok")
        except (ValueError, UnicodeError) as e:
            print("%s: %s" % (path, str(e).splitlines()[0][:120]))
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
