"""Op cases for the string ops: case, strip and length, Substr, splitting,
AsString, StringToNumber, ReduceJoin, the StringToHashBucket ops, base64,
the Regex ops, UnicodeEncode, UnicodeDecode(WithOffsets), StringFormat, the
logging ops Print and PrintV2 (PrintV2's text checked through a file://
stream in the scratch directory), and DisableCopyOnRead (a resource-variable op TensorFlow's graphs contain).

Strings include the empty string, whitespace and multi-byte UTF-8.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, raw, v1
import numpy as np
import tensorflow as tf


def _s(values):
    """A NumPy object array of UTF-8 bytes (nested lists keep their shape)."""
    def enc(v):
        return v.encode("utf-8") if isinstance(v, str) else v
    arr = np.array(values, dtype=object)
    return np.vectorize(enc, otypes=[object])(arr) if arr.size else arr


TEXT = ["Hello World", "", "  padded\t\n", "héllo wörld", "日本語 テキスト",
        "MiXeD-Case_123", "a,b,,c", " "]


def string_maps(g):
    for op, fn in (("StringLower", raw.StringLower), ("StringUpper", raw.StringUpper)):
        g.add(op, "vector", lambda c, fn=fn: [fn(input=c.feed(_s(TEXT)))], golden=True)
        g.add(op, "matrix", lambda c, fn=fn: [fn(input=c.feed(_s([["aB", "Cd"], ["", "é"]])))])
        g.add(op, "scalar", lambda c, fn=fn: [fn(input=c.feed(_s("ÀbC")))])
        g.add(op, "empty", lambda c, fn=fn: [fn(input=c.feed(_s(np.zeros([0, 2], object))))])
        g.add(op, "bad_encoding",
              lambda c, fn=fn: [fn(input=c.feed(_s(["a"])), encoding="latin-1")])
        g.add(op, "utf8", lambda c, fn=fn: [fn(input=c.feed(_s(
            TEXT + ["ÀÉÎõü", "straße", "ΣΑΣ σας", "İIıi", "ǅǈ", "ﬁ"])), encoding="utf-8")],
            golden=True)
        g.add(op, "utf8_invalid", lambda c, fn=fn: [fn(input=c.feed(np.array(
            [b"a\xffB", b"\xc3", b"x\x00Y"], object)), encoding="utf-8")])
    op = "StringStrip"
    g.add(op, "vector", lambda c: [raw.StringStrip(input=c.feed(_s(
        TEXT + ["\v\f x y \r", "\t"])))], golden=True)
    g.add(op, "scalar", lambda c: [raw.StringStrip(input=c.feed(_s("  s  ")))])
    op = "StringLength"
    for unit in ("BYTE", "UTF8_CHAR"):
        g.add(op, "unit_" + unit,
              lambda c, unit=unit: [raw.StringLength(input=c.feed(_s([TEXT[:4], TEXT[4:]])),
                                                     unit=unit)],
              golden=True)
    g.add(op, "invalid_utf8", lambda c: [raw.StringLength(
        input=c.feed(np.array([b"\xff\xfe", b"a\x80b", b"\xc3"], object)), unit="UTF8_CHAR")])
    g.add(op, "scalar", lambda c: [raw.StringLength(input=c.feed(_s("abc")))])


def substr(g):
    op = "Substr"

    def sub(c, strings, pos, ln, t="int32", unit="BYTE"):
        dt = DTYPES[t]
        return [raw.Substr(input=c.feed(_s(strings)), pos=c.feed(np.array(pos), dtype=dt),
                           len=c.feed(np.array(ln), dtype=dt), unit=unit)]
    words = ["Hello", "World", "", "héllo", "日本語"]
    for t in ("int32", "int64"):
        g.add(op, "scalar_pos_" + t, lambda c, t=t: sub(c, words[:2], 1, 3, t),
              golden=(t == "int32"))
    g.add(op, "elementwise", lambda c: sub(c, words[:2], [0, 2], [2, 10]), golden=True)
    g.add(op, "negative_pos", lambda c: sub(c, words[:2], [-3, -5], [2, 1]))
    g.add(op, "negative_len", lambda c: sub(c, words[:2], [1, 0], [-1, -5]))
    g.add(op, "pos_at_end", lambda c: sub(c, ["abc"], [3], [2]))
    g.add(op, "pos_out_of_range", lambda c: sub(c, ["abc", "de"], [1, 3], [1, 1]))
    g.add(op, "neg_pos_out_of_range", lambda c: sub(c, ["abc"], -4, 1))
    g.add(op, "utf8", lambda c: sub(c, words, 1, 2, unit="UTF8_CHAR"), golden=True)
    g.add(op, "utf8_negative", lambda c: sub(c, words[3:], [-2, -3], [1, 5], unit="UTF8_CHAR"))
    g.add(op, "utf8_negative_len", lambda c: sub(c, words[3:], [1, 0], [-1, 2],
                                                unit="UTF8_CHAR"))
    g.add(op, "utf8_out_of_range", lambda c: sub(c, ["日本語"], [4], [1], unit="UTF8_CHAR"))
    g.add(op, "utf8_at_end", lambda c: sub(c, ["日本語"], [3], [1], unit="UTF8_CHAR"))
    g.add(op, "utf8_bytes", lambda c: sub(c, ["日本語"], [1], [2]))
    g.add(op, "broadcast_1d", lambda c: sub(c, "Hello", [0, 1, 2], [1, 2, 3]))
    g.add(op, "broadcast_2d", lambda c: sub(c, [["ab", "cd", "ef"], ["gh", "ij", "kl"]],
                                            [0, 1, 1], [1, 1, 5]))
    g.add(op, "broadcast_2d_col", lambda c: sub(c, ["abc", "def"], [[0], [1]], [[1], [2]]))
    g.add(op, "broadcast_3d", lambda c: sub(c, [[["ab", "cd"]]], [1, 0], [1, 1]))
    g.add(op, "broadcast_out_of_range", lambda c: sub(c, ["ab", "cd"], [[0], [5]], [[1], [1]]))
    g.add(op, "incompatible", lambda c: sub(c, ["ab", "cd", "ef"], [0, 1], [1, 1]))
    g.add(op, "pos_len_mismatch", lambda c: sub(c, ["ab", "cd"], [0, 1], 1))
    g.add(op, "empty", lambda c: sub(c, np.zeros([0], object), 0, 1))


def splits(g):
    op = "StringSplit"

    def split(c, strings, delim, skip=True):
        return list(raw.StringSplit(input=c.feed(_s(strings)), delimiter=c.feed(_s(delim)),
                                    skip_empty=skip))
    g.add(op, "space", lambda c: split(c, ["hello world", "a  b c", ""], " "), golden=True)
    g.add(op, "any_char", lambda c: split(c, ["a,b;c", ";;x,"], ",;"))
    g.add(op, "keep_empty", lambda c: split(c, ["a,,b", "", ","], ",", False), golden=True)
    g.add(op, "empty_delimiter", lambda c: split(c, ["abc", "", "é"], ""))
    g.add(op, "utf8", lambda c: split(c, ["日本 語", "héllo wörld"], " "))
    g.add(op, "not_vector", lambda c: split(c, [["a b"]], " "))
    g.add(op, "delimiter_not_scalar", lambda c: split(c, ["a b"], [" "]))
    g.add(op, "empty_batch", lambda c: split(c, np.zeros([0], object), " "))
    op = "StringSplitV2"

    def split2(c, strings, sep, maxsplit=-1):
        return list(raw.StringSplitV2(input=c.feed(_s(strings)), sep=c.feed(_s(sep)),
                                      maxsplit=maxsplit))
    g.add(op, "sep", lambda c: split2(c, ["1,,2", "", "a,b,c"], ","), golden=True)
    g.add(op, "multichar_sep", lambda c: split2(c, ["1<>2<>3", "<>", "x"], "<>"))
    g.add(op, "whitespace", lambda c: split2(c, ["  a  b\tc\n", "", "   ", "x"], ""),
          golden=True)
    for m in (0, 1, 2):
        g.add(op, "maxsplit_%d" % m, lambda c, m=m: split2(c, ["a,b,c,d", "a", ",,"], ",", m))
        g.add(op, "ws_maxsplit_%d" % m,
              lambda c, m=m: split2(c, [" a  b c ", "a ", "  "], "", m))
    g.add(op, "utf8", lambda c: split2(c, ["日本·語·x"], "·"))
    g.add(op, "not_vector", lambda c: split2(c, "a b", " "))
    g.add(op, "sep_not_scalar", lambda c: split2(c, ["a b"], [" "]))


AS_STRING_TYPES = ["float", "double", "int32", "uint8", "int16", "int8", "int64",
                   "bfloat16", "uint16", "half", "uint32", "uint64", "complex64",
                   "complex128", "bool", "string"]


def as_string(g):
    op = "AsString"
    for t in AS_STRING_TYPES:
        g.add(op, "dtype_" + t,
              lambda c, t=t: [raw.AsString(input=c.input(DTYPES[t], [2, 3]))],
              golden=t in ("float", "int64", "bool"))
    floats = np.array([0.0, -1.5, 1e20, 1.0 / 3, 123456.789, np.nan, -np.inf, 1e-7], np.float64)

    def fmt(c, values, **attrs):
        return [raw.AsString(input=c.feed(values), **attrs)]
    for t in ("float", "double"):
        v = floats.astype(DTYPES[t].as_numpy_dtype)
        g.add(op, t + "_default", lambda c, v=v: fmt(c, v))
        g.add(op, t + "_precision", lambda c, v=v: fmt(c, v, precision=2), golden=(t == "float"))
        g.add(op, t + "_scientific", lambda c, v=v: fmt(c, v, scientific=True))
        g.add(op, t + "_shortest", lambda c, v=v: fmt(c, v, shortest=True))
        g.add(op, t + "_sci_precision", lambda c, v=v: fmt(c, v, scientific=True, precision=3))
        g.add(op, t + "_width_fill0", lambda c, v=v: fmt(c, v, width=14, fill="0"))
        g.add(op, t + "_width_left", lambda c, v=v: fmt(c, v, width=14, fill="-"))
        g.add(op, t + "_plus", lambda c, v=v: fmt(c, v, fill="+", shortest=True))
        g.add(op, t + "_alt", lambda c, v=v: fmt(c, v, fill="#", shortest=True, precision=3))
    g.add(op, "complex_precision", lambda c: fmt(
        c, np.array([1.5 + 2j, -0.25 - 1e10j], np.complex64), precision=1, width=6))
    ints = np.array([0, -7, 123, 42], np.int32)
    g.add(op, "int_width", lambda c: fmt(c, ints, width=5), golden=True)
    g.add(op, "int_fill0", lambda c: fmt(c, ints, width=5, fill="0"))
    g.add(op, "int_space", lambda c: fmt(c, ints, fill=" "))
    g.add(op, "int_plus", lambda c: fmt(c, ints.astype(np.int64), fill="+"))
    g.add(op, "uint64_max", lambda c: fmt(c, np.array([2**64 - 1, 0], np.uint64)))
    g.add(op, "int64_min", lambda c: fmt(c, np.array([-2**63, 2**63 - 1], np.int64)))
    g.add(op, "string_width", lambda c: fmt(c, _s(["ab", "", "héllo"]), width=6))
    g.add(op, "string_left", lambda c: fmt(c, _s(["ab", ""]), width=4, fill="-"))
    g.add(op, "string_precision", lambda c: fmt(c, _s(["abcdef", "x"]), precision=2))
    g.add(op, "bool_width", lambda c: fmt(c, np.array([True, False]), width=7))
    g.add(op, "int_precision", lambda c: fmt(c, ints, precision=2))
    g.add(op, "int_scientific", lambda c: fmt(c, ints, scientific=True))
    g.add(op, "bool_precision", lambda c: fmt(c, np.array([True]), precision=1))
    g.add(op, "sci_and_shortest", lambda c: fmt(c, floats, scientific=True, shortest=True))
    g.add(op, "fill_too_long", lambda c: fmt(c, floats, fill="00"))
    g.add(op, "fill_unsupported", lambda c: fmt(c, floats, fill="x"))
    g.add(op, "scalar", lambda c: fmt(c, np.float32(2.5)))
    g.add(op, "empty", lambda c: fmt(c, np.zeros([0, 3], np.float32)))


def string_to_number(g):
    op = "StringToNumber"
    good = {
        "float": ["1.5", " -2 ", "0x1A", "inf", "-INF", "NaN", "1e40", "+3", "1e-50",
                  "0.1", "- 4", "  7e2", "3.4028235e38"],
        "double": ["1.5", " -2 ", "0x1A", "inf", "-Inf", "nan", "1e400", "+3", "1e-330",
                   "0.1", "2.718281828459045"],
        "int32": ["0", "-2147483648", "2147483647", " 12 ", "+5", "-0", "007"],
        "int64": ["0", "-9223372036854775808", "9223372036854775807", " 12 ", "+5"],
        "uint32": ["0", "4294967295", " 12 ", "+5"],
        "uint64": ["0", "18446744073709551615", " 12", "+5"],
    }
    for t, values in good.items():
        g.add(op, "dtype_" + t,
              lambda c, t=t, v=values: [raw.StringToNumber(string_tensor=c.feed(_s(v)),
                                                           out_type=DTYPES[t])],
              golden=t in ("float", "int32"))
    bad = {
        "float": ["", "abc", "1.5x", "1,5", "infinity", "0x", "1" * 40, "--1"],
        "double": ["", "1e", " ", "nan1"],
        "int32": ["", "2147483648", "1.5", "0x10", "1e3", "- 1", "abc"],
        "int64": ["9223372036854775808", ""],
        "uint32": ["-1", "4294967296", "-0"],
        "uint64": ["-1", "18446744073709551616"],
    }
    for t, values in bad.items():
        for i, v in enumerate(values):
            g.add(op, "bad_%s_%d" % (t, i),
                  lambda c, t=t, v=v: [raw.StringToNumber(string_tensor=c.feed(_s([v])),
                                                          out_type=DTYPES[t])])
    g.add(op, "scalar", lambda c: [raw.StringToNumber(string_tensor=c.feed(_s("3.25")))])
    g.add(op, "matrix", lambda c: [raw.StringToNumber(
        string_tensor=c.feed(_s([["1", "2"], ["3", "4"]])), out_type=tf.int64)])


def reduce_join(g):
    op = "ReduceJoin"
    words = _s([["a", "b", "c"], ["d", "", "f"]])

    def rj(c, axes, keep=False, sep="", x=None):
        x = words if x is None else x
        return [raw.ReduceJoin(inputs=c.feed(x), reduction_indices=c.feed(np.array(axes, np.int32)),
                               keep_dims=keep, separator=sep)]
    g.add(op, "axis0", lambda c: rj(c, 0), golden=True)
    g.add(op, "axis1_sep", lambda c: rj(c, [1], sep=", "), golden=True)
    g.add(op, "negative", lambda c: rj(c, -1, sep="-"))
    g.add(op, "both", lambda c: rj(c, [1, 0], sep="/"))
    g.add(op, "keep_dims", lambda c: rj(c, [0], keep=True, sep="+"))
    g.add(op, "keep_both", lambda c: rj(c, [0, 1], keep=True))
    g.add(op, "no_axes", lambda c: rj(c, np.zeros([0], np.int32)))
    g.add(op, "rank3", lambda c: rj(c, [0, 2], sep=".", x=c.rand(tf.string, [2, 3, 2])))
    g.add(op, "rank3_mid", lambda c: rj(c, 1, keep=True, x=c.rand(tf.string, [2, 3, 2])))
    g.add(op, "zero_dim", lambda c: rj(c, 1, sep=",", x=np.zeros([2, 0], object)))
    g.add(op, "zero_kept", lambda c: rj(c, 1, x=np.zeros([0, 3], object)))
    g.add(op, "scalar", lambda c: rj(c, np.zeros([0], np.int32), x=_s("s")))
    g.add(op, "out_of_range", lambda c: rj(c, 2))
    g.add(op, "out_of_range_neg", lambda c: rj(c, -3))
    g.add(op, "duplicate", lambda c: rj(c, [1, -1]))


def hash_buckets(g):
    strings = _s(["", "a", "hello", "Hello World!", "日本語", "x" * 100, "0123456",
                  "01234567", "012345678"])
    for op in ("StringToHashBucketFast", "StringToHashBucketStrong", "StringToHashBucket"):
        def hb(c, buckets, op=op, key=(17, 42), x=None):
            x = c.feed(strings if x is None else x)
            if op == "StringToHashBucketFast":
                return [raw.StringToHashBucketFast(input=x, num_buckets=buckets)]
            if op == "StringToHashBucketStrong":
                return [raw.StringToHashBucketStrong(input=x, num_buckets=buckets,
                                                     key=list(key))]
            return [raw.StringToHashBucket(string_tensor=x, num_buckets=buckets)]
        g.add(op, "buckets_1000", lambda c, hb=hb: hb(c, 1000), golden=True)
        g.add(op, "buckets_large", lambda c, hb=hb: hb(c, 2**62 + 7))
        g.add(op, "buckets_1", lambda c, hb=hb: hb(c, 1))
        g.add(op, "matrix", lambda c, hb=hb: hb(c, 97, x=_s([["a", "b"], ["c", "d"]])))
        g.add(op, "random", lambda c, hb=hb: hb(c, 1 << 40, x=c.rand(tf.string, [20])))
    op = "StringToHashBucketStrong"
    g.add(op, "big_key", lambda c: [raw.StringToHashBucketStrong(
        input=c.feed(strings), num_buckets=2**40, key=[-1, 2**63 - 1])])
    g.add(op, "bad_key", lambda c: [raw.StringToHashBucketStrong(
        input=c.feed(strings), num_buckets=10, key=[1])])


def base64(g):
    op = "EncodeBase64"
    data = _s(["", "f", "fo", "foo", "foob", "fooba", "foobar", "日本語"])
    bins = np.array([bytes([255, 254, 253]), bytes(range(64)), b"\xfb\xff"], object)
    for pad in (False, True):
        g.add(op, "pad_%s" % pad,
              lambda c, pad=pad: [raw.EncodeBase64(input=c.feed(data), pad=pad)], golden=True)
        g.add(op, "binary_pad_%s" % pad,
              lambda c, pad=pad: [raw.EncodeBase64(input=c.feed(bins), pad=pad)])
    op = "DecodeBase64"
    g.add(op, "padded", lambda c: [raw.DecodeBase64(input=c.feed(_s(
        ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy", "__79"])))],
        golden=True)
    g.add(op, "unpadded", lambda c: [raw.DecodeBase64(input=c.feed(_s(
        ["Zg", "Zm8", "Zm9vYg", "Zm9vYmE", "-_-_"])))])
    g.add(op, "round_trip", lambda c: [raw.DecodeBase64(input=raw.EncodeBase64(
        input=c.feed(bins)))])
    for i, bad in enumerate(["Z", "Zm9vY", "Zm+v", "Zm/v", "Zm9v====", "Z===", "====",
                             "Zm=v", "Zg=", "Zm 9v"]):
        g.add(op, "bad_%d" % i, lambda c, bad=bad: [raw.DecodeBase64(input=c.feed(_s([bad])))])


def regex(g):
    strings = _s(["hello", "Hello123", "", "abcabc", "日本語", "a.b.c", "aaa"])
    pats = {"word": r"[a-z]+", "digits": r".*\d+", "empty": r"", "any": r".*",
            "anchored": r"^ab", "alt": r"(abc)+|h\w*", "utf8": r"日.語",
            "class": r"\p{Han}+", "case": r"(?i)HELLO"}
    op = "StaticRegexFullMatch"
    for name, p in pats.items():
        g.add(op, name, lambda c, p=p: [raw.StaticRegexFullMatch(input=c.feed(strings),
                                                                 pattern=p)],
              golden=name in ("word", "utf8"))
    g.add(op, "invalid", lambda c: [raw.StaticRegexFullMatch(input=c.feed(strings),
                                                             pattern="(a")])
    g.add(op, "matrix_char_class", lambda c: [raw.StaticRegexFullMatch(
        input=c.feed(_s([["a", "b"], ["1", "ab"]])), pattern="[a-z]")])
    op = "RegexFullMatch"
    for name, p in pats.items():
        g.add(op, name, lambda c, p=p: [raw.RegexFullMatch(input=c.feed(strings),
                                                           pattern=c.feed(_s(p)))],
              golden=name in ("word", "class"))
    g.add(op, "invalid", lambda c: [raw.RegexFullMatch(input=c.feed(strings),
                                                       pattern=c.feed(_s("[a-")))])
    g.add(op, "pattern_not_scalar", lambda c: [raw.RegexFullMatch(
        input=c.feed(strings), pattern=c.feed(_s(["a"])))])
    g.add(op, "backreference", lambda c: [raw.RegexFullMatch(
        input=c.feed(strings), pattern=c.feed(_s(r"(a)\1")))],
        note="RE2 rejects backreferences")

    rewrites = [("vowels", "[aeiou]", "_"), ("groups", r"(\w)(\d)", r"\2\1"),
                ("whole", r"b+", r"<\0>"), ("empty_match", r"x*", "-"),
                ("anchor", r"^", ">"), ("utf8", "本", "ほん"), ("dot_utf8", ".", "."),
                ("delete", r"\d", ""), ("no_match", "zzz", "y"),
                ("bad_rewrite", "(a)", r"\2"), ("escape", "a", r"\\")]
    op = "StaticRegexReplace"
    for name, p, r in rewrites:
        for glob in (True, False):
            g.add(op, "%s_%s" % (name, "global" if glob else "first"),
                  lambda c, p=p, r=r, glob=glob: [raw.StaticRegexReplace(
                      input=c.feed(strings), pattern=p, rewrite=r, replace_global=glob)],
                  golden=(name == "groups"))
    g.add(op, "invalid", lambda c: [raw.StaticRegexReplace(input=c.feed(strings),
                                                           pattern="*", rewrite="")])
    op = "RegexReplace"
    for name, p, r in rewrites:
        for glob in (True, False):
            g.add(op, "%s_%s" % (name, "global" if glob else "first"),
                  lambda c, p=p, r=r, glob=glob: [raw.RegexReplace(
                      input=c.feed(strings), pattern=c.feed(_s(p)), rewrite=c.feed(_s(r)),
                      replace_global=glob)],
                  golden=(name == "vowels"))
    g.add(op, "invalid", lambda c: [raw.RegexReplace(
        input=c.feed(strings), pattern=c.feed(_s("a{2,1}")), rewrite=c.feed(_s("")))])
    g.add(op, "rewrite_not_scalar", lambda c: [raw.RegexReplace(
        input=c.feed(strings), pattern=c.feed(_s("a")), rewrite=c.feed(_s(["b"])))])
    g.add(op, "pattern_not_scalar", lambda c: [raw.RegexReplace(
        input=c.feed(strings), pattern=c.feed(_s(["a"])), rewrite=c.feed(_s("b")))])
    g.add(op, "scalar", lambda c: [raw.RegexReplace(
        input=c.feed(_s("a-b-c")), pattern=c.feed(_s("-")), rewrite=c.feed(_s("+")))])


def unicode_encode(g):
    op = "UnicodeEncode"
    points = [72, 0xD800, -1, 0x110000, 0x1F600, 0, 0xE9, 0x65E5, 0xDFFF, 0x7FF, 0xFFFF]

    def ue(c, splits, encoding="UTF-8", errors="replace", repl=0xFFFD, t=tf.int64,
           values=points):
        return [raw.UnicodeEncode(
            input_values=c.feed(np.array(values, np.int32)),
            input_splits=c.feed(np.array(splits), dtype=t), output_encoding=encoding,
            errors=errors, replacement_char=repl)]
    splits = [0, 3, 3, 7, 11]
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        for errors in ("replace", "ignore", "strict"):
            g.add(op, "%s_%s" % (enc.replace("-", "").lower(), errors),
                  lambda c, enc=enc, errors=errors: ue(c, splits, enc, errors),
                  golden=(errors == "replace" and enc == "UTF-8"))
    g.add(op, "splits_int32", lambda c: ue(c, splits, t=tf.int32), golden=True)
    g.add(op, "replacement_ascii", lambda c: ue(c, splits, repl=ord("?")))
    g.add(op, "valid_only", lambda c: ue(c, [0, 2, 4], "UTF-16-BE", "strict",
                                         values=[0x10FFFF, 0x10000, 0xD7FF, 0xE000]))
    g.add(op, "bad_replacement", lambda c: ue(c, splits, repl=0x110000))
    g.add(op, "splits_empty", lambda c: ue(c, np.zeros([0], np.int64)))
    g.add(op, "splits_not_from_zero", lambda c: ue(c, [1, 11]))
    g.add(op, "splits_descending", lambda c: ue(c, [0, 5, 2, 11]))
    g.add(op, "splits_short", lambda c: ue(c, [0, 3, 10]))
    g.add(op, "one_split", lambda c: ue(c, [0], values=[]))


# Well-formed and ill-formed UTF-8: a stray continuation byte, a truncated
# sequence (mid-string and at the end), an encoded surrogate, a code point
# past 0x10FFFF, an overlong NUL, C0 controls, DEL and a 4-byte character.
UTF8_MIXED = [b"\xffabc", b"a\xc3", b"\xe6\x97\xa5x\x01\x1f\x7f", b"\xed\xa0\x80z",
              b"\xf4\x90\x80\x80", b"\xc0\x80", b"\xe6\x97", b"", b"\xe6\x97 y",
              b"\xf0\x9f\x98\x80\x00", "héllo 日本".encode("utf-8")]
# Per encoding: strings with an unpaired surrogate, an out-of-range code
# point and a truncated last unit.
UNICODE_BY_ENCODING = {
    "UTF-8": UTF8_MIXED,
    "UTF-16-BE": [b"\x00a\xd8\x00\x00b", b"\x00", b"\xd8\x3d\xde\x00\x00\x01",
                  b"\xdc\x00", b"\x65\xe5\x00\x1f", b""],
    "UTF-32-BE": [b"\x00\x00\x00a\x00\x11\x00\x00\x00\x00\xd8\x00zz",
                  b"\x00\x01\xf6\x00\x00\x00\x00\x02", b"\x00\x00", b""],
}


def unicode_decode(g):
    for op, f in (("UnicodeDecode", raw.UnicodeDecode),
                  ("UnicodeDecodeWithOffsets", raw.UnicodeDecodeWithOffsets)):
        def ud(c, strings, encoding="UTF-8", errors="replace", repl=0xFFFD, control=False,
               t=tf.int64, f=f):
            return list(f(input=c.feed(np.array(strings, object)), input_encoding=encoding,
                          errors=errors, replacement_char=repl,
                          replace_control_characters=control, Tsplits=t))
        for enc, strings in UNICODE_BY_ENCODING.items():
            for errors in ("replace", "ignore", "strict"):
                for control in (False, True):
                    g.add(op, "%s_%s%s" % (enc.replace("-", "").lower(), errors,
                                           "_control" if control else ""),
                          lambda c, s=strings, enc=enc, e=errors, ctl=control:
                          ud(c, s, enc, e, control=ctl),
                          golden=(enc == "UTF-8" and errors == "replace" and not control))
        g.add(op, "strict_valid", lambda c: ud(c, [b"ok", "日本".encode("utf-8")],
                                               errors="strict", control=True))
        if op == "UnicodeDecode":
            # TensorFlow's UnicodeDecodeWithOffsets aborts with int32 splits
            # (known_differences.txt).
            g.add(op, "splits_int32", lambda c: ud(c, UTF8_MIXED, t=tf.int32), golden=True)
        g.add(op, "replacement_ascii", lambda c: ud(c, UTF8_MIXED, repl=ord("?")))
        g.add(op, "replacement_zero", lambda c: ud(c, UTF8_MIXED, repl=0, control=True))
        g.add(op, "matrix", lambda c: ud(c, [[b"ab", b""], [b"c", b"\xff"]]))
        g.add(op, "scalar", lambda c: ud(c, b"scalar\xe2\x82\xac"))
        g.add(op, "empty", lambda c: ud(c, np.zeros([0, 3], object)))
        g.add(op, "utf16_bom", lambda c: ud(c, [b"\xff\xfea\x00", b"\xfe\xff\x00b",
                                                b"c\x00"], "UTF-16"))
        g.add(op, "utf16le", lambda c: ud(c, [b"\xff\xfea\x00\x00\xd8"], "UTF-16LE"))
        g.add(op, "latin1", lambda c: ud(c, [b"abc\xe9\xff"], "ISO-8859-1"))
        g.add(op, "alias_utf8", lambda c: ud(c, [b"abc\xff"], "utf8"))
        g.add(op, "shift_jis", lambda c: ud(c, [b"\x82\xa0a", b"\x82"], "Shift_JIS"))
        g.add(op, "bad_encoding", lambda c: ud(c, [b"a"], "no-such-encoding"))
        g.add(op, "replacement_negative", lambda c: ud(c, [b"a"], repl=-1))
        g.add(op, "replacement_too_big", lambda c: ud(c, [b"a"], repl=0x110000))


def string_format(g):
    op = "StringFormat"

    def fmt(c, inputs, template=None, placeholder="{}", summarize=3):
        n = len(inputs)
        template = " ".join(["{}"] * n) if template is None else template
        return [raw.StringFormat(inputs=inputs, template=template, placeholder=placeholder,
                                 summarize=summarize)]
    mixed = lambda c: [c.feed(np.array([True, False])),
                       c.feed(np.arange(10, dtype=np.int64)),
                       c.feed(np.zeros([2, 0])),
                       c.feed(np.array([1.5, 0.1, 1e20, np.nan, -np.inf, 1.0 / 3], np.float32)),
                       c.feed(_s(["a\n\"b", "é", ""])),
                       c.feed(np.arange(27, dtype=np.int32).reshape(3, 3, 3)),
                       c.feed(np.array([1 + 2j], np.complex64)),
                       c.feed(np.int8(7)),
                       c.feed(np.array([1.5, 0.1], np.float16)),
                       c.feed(np.array([1.0 / 3, 1e300, -0.0])),
                       c.feed(np.array([2**64 - 1], np.uint64))]
    for s in (1, 2, 3, -1, 0):
        g.add(op, "summarize_%d" % s, lambda c, s=s: fmt(c, mixed(c), summarize=s),
              golden=(s == 2))
    g.add(op, "text", lambda c: fmt(c, [c.input(tf.float32, [2, 3])],
                                    template="x = {} !", placeholder="{}"), golden=True)
    g.add(op, "default_placeholder", lambda c: fmt(
        c, [c.input(tf.int32, [4]), c.feed(_s("s"))], template="a %s b %s", placeholder="%s"))
    g.add(op, "no_inputs", lambda c: fmt(c, [], template="plain"))
    g.add(op, "scalar_float", lambda c: fmt(c, [c.feed(np.float32(0.1))]))
    g.add(op, "matrix_strings", lambda c: fmt(c, [c.input(tf.string, [3, 4])], summarize=1))
    g.add(op, "deep", lambda c: fmt(c, [c.input(tf.float64, [2, 2, 2, 2])], summarize=1))

    def mismatch(c):
        x = c.input(tf.float32, [2])
        return Spec(fetches=[raw.StringFormat(inputs=[x], template="{}", placeholder="{}")],
                    edit=lambda gd: _set_attr(gd, "StringFormat", "template", b"{} {}"))
    g.add(op, "placeholder_mismatch", mismatch,
          note="template edited after building (the Python layer checks the count)")


def _set_attr(graph_def, op, attr, value):
    for node in graph_def.node:
        if node.op == op:
            node.attr[attr].s = value


def logging(g):
    op = "Print"
    for t in ("float", "int32", "string", "bool"):
        def pr(c, t=t):
            x = c.input(DTYPES[t], [2, 3])
            return [v1.Print(x, [x, c.input(tf.float64, [4])], message="x: ", summarize=2)]
        g.add(op, "dtype_" + t, pr, golden=(t == "float"))
    g.add(op, "first_n", lambda c: Spec(fetches=[v1.Print(
        c.input(tf.float32, [3]), [c.input(tf.int64, [2])], first_n=1)], steps=3))
    g.add(op, "no_data", lambda c: [raw.Print(input=c.input(tf.float32, [2]), data=[])])

    op = "PrintV2"

    def to_file(c, inputs, end=None, summarize=3, steps=1):
        s = raw.StringFormat(inputs=inputs, template=" ".join(["{}"] * len(inputs)),
                             placeholder="{}", summarize=summarize)
        attrs = {} if end is None else {"end": end}
        p = raw.PrintV2(input=s, output_stream="file://printed.txt", **attrs)
        return Spec(targets=[p], scratch=True, scratch_outputs=["printed.txt"], steps=steps)
    g.add(op, "file", lambda c: to_file(c, [c.input(tf.float32, [2, 3]),
                                           c.feed(_s(["a", "b\n"]))]), golden=True)
    g.add(op, "file_end", lambda c: to_file(c, [c.input(tf.int32, [5])], end=" <end>",
                                           summarize=1, steps=2))
    g.add(op, "tf_print", lambda c: Spec(
        targets=[tf.print("x:", c.input(tf.float32, [2, 2]), output_stream="file://p.txt",
                          sep="|", end="$")], scratch=True, scratch_outputs=["p.txt"]),
        note="tf.print builds StringFormat and PrintV2")
    for stream in ("stderr", "stdout", "log(info)"):
        g.add(op, "stream_" + stream.replace("(", "_").replace(")", ""),
              lambda c, stream=stream: Spec(targets=[raw.PrintV2(
                  input=c.feed(_s("hi")), output_stream=stream)]))
    g.add(op, "not_scalar", lambda c: Spec(targets=[raw.PrintV2(
        input=c.feed(_s(["a", "b"])))]))
    g.add(op, "bad_stream", lambda c: Spec(targets=[raw.PrintV2(
        input=c.feed(_s("a")), output_stream="nowhere")]))


def disable_copy_on_read(g):
    op = "DisableCopyOnRead"

    def case(c, init):
        v = v1.Variable(c.rand(tf.float32, [2, 3]), use_resource=True, name="v")
        d = raw.DisableCopyOnRead(resource=v.handle)
        with tf.control_dependencies([d]):
            y = v.read_value() * 2.0
        return Spec(fetches=[y], init=[v.initializer] if init else [])
    g.add(op, "initialized", lambda c: case(c, True), golden=True)
    g.add(op, "uninitialized", lambda c: case(c, False))


def generate(g):
    string_maps(g)
    substr(g)
    splits(g)
    as_string(g)
    string_to_number(g)
    reduce_join(g)
    hash_buckets(g)
    base64(g)
    regex(g)
    unicode_encode(g)
    unicode_decode(g)
    string_format(g)
    logging(g)
    disable_copy_on_read(g)
