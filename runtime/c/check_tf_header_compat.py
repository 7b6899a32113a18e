"""Checks stepflow's C API headers against TensorFlow's, declaration by
declaration.

  python3 check_tf_header_compat.py OUR_INCLUDE TF_INCLUDE WORK_DIR

Both header sets are compiled (each in its own translation unit, with the
same #includes) by gcc with -aux-info, which writes every function
prototype with its parameter and return types spelled out; then:
  - every function TensorFlow declares in c_api.h and tf_*.h must be
    declared by ours with the identical prototype;
  - every function both declare (c_api_experimental.h too) must agree;
  - the public structs (sizeof and each field's offset) and the enums
    (each enumerator's value) of our headers must be the same under
    TensorFlow's headers, by a generated program compiled and run against
    each.
Functions only ours declare are listed, not errors. Exit status 1 on any
difference.
"""

import os
import re
import subprocess
import sys

HEADERS = ["c_api.h", "c_api_experimental.h", "tf_attrtype.h", "tf_buffer.h",
           "tf_datatype.h", "tf_status.h", "tf_tensor.h", "tf_tstring.h"]
# TensorFlow spells these typedefs differently for the same type (its
# tf_status.h #defines TF_PayloadVisitor as TSL_PayloadVisitor).
SAME_TYPES = {"TSL_PayloadVisitor": "TF_PayloadVisitor"}


def run(cmd):
    subprocess.run(cmd, check=True)


def prototypes(include, work, tag):
    src = os.path.join(work, "all_headers.c")
    with open(src, "w") as f:
        for h in HEADERS:
            f.write('#include "tensorflow/c/%s"\n' % h)
    aux = os.path.join(work, "%s.aux" % tag)
    run(["gcc", "-std=c11", "-fsyntax-only", "-aux-info", aux, "-I", include,
         src])
    protos = {}
    for line in open(aux):
        m = re.match(r"/\* (\S+):\d+:\S+ \*/ (.*)$", line.strip())
        if not m:
            continue
        path, decl = m.group(1), m.group(2)
        if "/tensorflow/c/" not in path or decl.startswith("static"):
            continue
        # Only tensorflow/c/*.h itself (not eager/, tsl/ and the like).
        header = path.split("/tensorflow/c/")[-1]
        if "/" in header:
            continue
        name = re.search(r"(\w+) \(", decl)
        if not name:
            continue
        decl = decl.replace("(/* ??? */)", "(void)")
        for theirs, ours in SAME_TYPES.items():
            decl = re.sub(r"\b%s\b" % theirs, ours, decl)
        protos[name.group(1)] = (header, decl)
    return protos


def matching_brace(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced braces")


def structs(text):
    """(typedef name, body) of each "typedef struct X { ... } Y;"."""
    for m in re.finditer(r"typedef struct \w* ?\{", text):
        close = matching_brace(text, m.end() - 1)
        name = re.match(r"\s*(\w+)\s*;", text[close + 1:])
        if name:
            yield name.group(1), text[m.end():close]


def top_level_fields(body):
    """Names of the fields declared at the top level of a struct body."""
    depth, start, fields = 0, 0, []
    for i, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ";" and depth == 0:
            decl = body[start:i].strip()
            start = i + 1
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp and "{" not in decl:
                fields.append(fp.group(1))  # A function pointer.
                continue
            name = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl)
            if name:
                fields.append(name.group(1))
    return fields


def layout_program(include, work):
    """A C program printing the layout of our public structs and enums."""
    text = ""
    for h in HEADERS:
        text += open(os.path.join(include, "tensorflow/c", h)).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    lines = ["#include <stddef.h>", "#include <stdio.h>"]
    lines += ['#include "tensorflow/c/%s"' % h for h in HEADERS]
    lines.append("int main(void) {")
    for name, body in structs(text):
        lines.append('  printf("sizeof %s %%zu\\n", sizeof(%s));' %
                     (name, name))
        for field in top_level_fields(body):
            lines.append(
                '  printf("offsetof %s.%s %%zu\\n", offsetof(%s, %s));' %
                (name, field, name, field))
    for m in re.finditer(r"typedef enum (\w+) \{(.*?)\} (\w+);", text, re.S):
        for item in m.group(2).split(","):
            e = re.match(r"\s*(\w+)", item)
            if e:
                lines.append('  printf("enum %s %%lld\\n", (long long)%s);' %
                             (e.group(1), e.group(1)))
    lines.append("  return 0;\n}")
    src = os.path.join(work, "layout.c")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    return src


def layout(src, include, work, tag):
    exe = os.path.join(work, "layout_%s" % tag)
    run(["gcc", "-std=c11", "-o", exe, "-I", include, src])
    return subprocess.run([exe], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def main():
    ours_inc, tf_inc, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    errors = []
    ours = prototypes(ours_inc, work, "ours")
    tf = prototypes(tf_inc, work, "tf")
    for name, (header, decl) in sorted(tf.items()):
        if name not in ours:
            if header != "c_api_experimental.h":
                errors.append("missing: %s (TensorFlow's %s): %s" %
                              (name, header, decl))
            continue
        if ours[name][1] != decl:
            errors.append("differs: %s\n  TensorFlow: %s\n  ours:       %s" %
                          (name, decl, ours[name][1]))
    only_ours = sorted(set(ours) - set(tf))
    compared = len(set(ours) & set(tf))

    src = layout_program(ours_inc, work)
    ours_layout = layout(src, ours_inc, work, "ours")
    tf_layout = layout(src, tf_inc, work, "tf")
    for a, b in zip(ours_layout, tf_layout):
        if a != b:
            errors.append("layout differs: ours '%s', TensorFlow '%s'" %
                          (a, b))
    if len(ours_layout) != len(tf_layout) or len(ours_layout) < 50:
        errors.append("layout program printed %d/%d lines" %
                      (len(ours_layout), len(tf_layout)))

    print("%d functions compared, %d layout facts compared" %
          (compared, len(ours_layout)))
    print("declared only by ours: %s" % (", ".join(only_ours) or "none"))
    missing_experimental = sorted(
        n for n, (h, _) in tf.items()
        if n not in ours and h == "c_api_experimental.h")
    print("TensorFlow's c_api_experimental.h functions we do not declare "
          "(%d): %s" % (len(missing_experimental),
                        ", ".join(missing_experimental)))
    for e in errors:
        print("ERROR " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
