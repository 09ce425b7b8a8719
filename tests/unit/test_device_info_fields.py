"""The device-info fields agree everywhere they are written by hand.

One device property is listed in five places: the C++ struct ``DeviceInfo``
(vkdispatch_native/include/vkdispatch/device_info.hpp), its Cython declaration
(vkdispatch_native/bindings/c_device_info.pxd), the dict that ``_device_dict`` builds in
vkdispatch_native/bindings/device.pxi, ``DEVICE_INFO_FIELDS`` (vkdispatch/base/device_info.py)
and the dummy backend's ``dummy_device_fields()``. The C++ struct is the source of truth: each
member becomes the Python field of the same name unless RENAMED or NATIVE_ONLY below says
otherwise, and every other list must match it. The sources are read as text, so no compiler
and no GPU are needed; tests/device/test_native_device_info.py checks the dicts that the
compiled module really returns.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from vkdispatch.base.backend import dummy_device_fields
from vkdispatch.base.device_info import DEVICE_INFO_FIELDS

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "vkdispatch_native/include/vkdispatch/device_info.hpp"
PXD = ROOT / "vkdispatch_native/bindings/c_device_info.pxd"
DEVICE_PXI = ROOT / "vkdispatch_native/bindings/device.pxi"
STRUCT = "DeviceInfo"
DICT_FUNCTION = "_device_dict"

# C++ member -> the Python field it becomes, only where the name differs or members merge.
RENAMED = {
    "index": "dev_index",                  # vkdispatch 0.1.0's name
    "queue_families": "queue_properties",  # a list of (queue_count, flags) tuples
    "has_uuid": "uuid",                    # uuid is None when has_uuid is false
}
# C++ members that never reach Python (nor the .pxd), with the reason.
NATIVE_ONLY = {
    "storage_buffer_alignment": "read only by descriptor_set.cpp to check storage-buffer "
                                "offsets; vkdispatch 0.1.0's DeviceInfo has no such field",
    "sampler_mirror_clamp_to_edge": "read only by device.cpp (enabling the feature) and "
                                    "sampler.cpp; vkdispatch 0.1.0's DeviceInfo has no such field",
    "pipeline_statistics": "read only by device.cpp (enabling the extension) and "
                           "pipeline_statistics.cpp, which raises where it is false",
}

SOURCE_NAMES = {
    "header": "device_info.hpp",
    "pxd": "c_device_info.pxd",
    "dict": f"device.pxi {DICT_FUNCTION}",
    "python": "DEVICE_INFO_FIELDS",
    "dummy": "dummy_device_fields()",
}


# ---- C++: the data members of one struct ------------------------------------------------------

_CPP_TOKEN = re.compile(r"""
    (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<ws>[^\S\n]+|\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<word>[A-Za-z_]\w*)
  | (?P<number>\d[\w.']*)
  | (?P<op>::|\S)
""", re.S | re.M | re.X)
_NOT_MEMBER_START = {"using", "typedef", "friend", "static_assert", "template"}
_TYPE_KEYWORDS = {"struct", "class", "union", "enum"}
_ACCESS = {"public", "private", "protected"}
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")


def _cpp_tokens(text: str) -> list[str]:
    """Tokens of C++ source without comments, whitespace and preprocessor lines."""
    return [m.group() for m in _CPP_TOKEN.finditer(text)
            if m.lastgroup not in ("pp", "ws", "comment")]


def _matching(tokens: list[str], start: int) -> int:
    """Index of the bracket closing the one at ``start``."""
    depth = 0
    for i in range(start, len(tokens)):
        depth += (tokens[i] in _OPEN) - (tokens[i] in _CLOSE)
        if depth == 0:
            return i
    raise ValueError(f"unbalanced '{tokens[start]}'")


def _without_attributes(tokens: list[str]) -> list[str]:
    """Drops ``[[...]]``, ``alignas(...)`` and ``__attribute__((...))``, whose brackets would
    otherwise look like a function's parameter list or an array size."""
    out, i = [], 0
    while i < len(tokens):
        if tokens[i] == "[" and tokens[i + 1:i + 2] == ["["]:
            i = _matching(tokens, i) + 1
        elif tokens[i] in ("alignas", "__attribute__") and tokens[i + 1:i + 2] == ["("]:
            i = _matching(tokens, i + 1) + 1
        else:
            out.append(tokens[i])
            i += 1
    return out


def _struct_body(tokens: list[str], name: str) -> list[str]:
    """Tokens between the braces of the definition of struct/class ``name``."""
    for i in range(len(tokens) - 1):
        if tokens[i] in ("struct", "class") and tokens[i + 1] == name:
            j = i + 2
            while j < len(tokens) and tokens[j] not in ("{", ";"):
                j += 1  # final, base classes
            if j < len(tokens) and tokens[j] == "{":
                return tokens[j + 1:_matching(tokens, j)]
    raise ValueError(f"no definition of struct {name}")


def _is_function(head: list[str]) -> bool:
    """Whether a declaration (up to its initialiser or body) declares a function: a '(' outside
    template arguments before any top-level '=' or '{'."""
    if "operator" in head:
        return True
    angle = 0
    for token in head:
        if token in ("=", "{"):
            return False
        angle += (token == "<") - (token == ">")
        if token == "(" and angle == 0:
            return True
    return False


def _cpp_statements(body: list[str]) -> list[list[str]]:
    """The struct body split into declarations: at top-level ';', and after a function body."""
    statements, current, opened, i = [], [], [], 0
    while i < len(body):
        token = body[i]
        if not opened and token in _ACCESS and body[i + 1:i + 2] == [":"]:
            i += 2  # an access specifier
            continue
        current.append(token)
        if token in _OPEN:
            opened.append(len(current) - 1)
        elif token in _CLOSE:
            start = opened.pop()
            if not opened and token == "}" and _is_function(current[:start]):
                statements.append(current)
                current = []
        elif token == ";" and not opened:
            statements.append(current[:-1])
            current = []
        i += 1
    if current:
        raise ValueError(f"declaration without ';': {' '.join(current)}")
    return statements


def _split_declarators(tokens: list[str]) -> list[list[str]]:
    """``a = 0, b{1}, c`` -> three declarators; commas in template arguments, brackets or
    initialisers do not split (a '<' after '=' is a comparison, not a template)."""
    parts, current, depth, angle, in_init = [], [], 0, 0, False
    for token in tokens:
        if depth == 0 and angle == 0:
            if token == ",":
                parts.append(current)
                current, in_init = [], False
                continue
            if token in ("=", "{"):
                in_init = True
        depth += (token in _OPEN) - (token in _CLOSE)
        if not in_init:
            angle += (token == "<") - (token == ">")
        current.append(token)
    parts.append(current)
    return parts


def _declarator_name(tokens: list[str], statement: list[str]) -> str:
    """The name in one declarator: its last identifier before an initialiser, bit-field width
    or array size."""
    head, depth = [], 0
    for token in tokens:
        if depth == 0 and token in ("=", "{", ":"):
            break
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth -= 1
        elif depth == 0:
            head.append(token)
    qualifiers = ("const", "mutable", "volatile")
    words = [t for t in head if re.fullmatch(r"[A-Za-z_]\w*", t) and t not in qualifiers]
    if not words:
        raise ValueError(f"no member name in declaration: {' '.join(statement)}")
    return words[-1]


def cpp_struct_members(text: str, name: str) -> list[str]:
    """Names of the non-static data members of struct ``name`` in C++ source, in order."""
    members = []
    for statement in _cpp_statements(_without_attributes(_struct_body(_cpp_tokens(text), name))):
        if not statement or statement[0] in _NOT_MEMBER_START or "static" in statement:
            continue
        declaration = statement
        if statement[0] in _TYPE_KEYWORDS and "{" in statement:
            # A nested type: only declarators after its closing brace are members.
            declaration = ["T"] + statement[_matching(statement, statement.index("{")) + 1:]
            if len(declaration) == 1:
                continue
        elif _is_function(statement):
            continue
        members += [_declarator_name(part, statement) for part in _split_declarators(declaration)]
    return members


# ---- Cython: the members of one cppclass declaration -------------------------------------------

_PY_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>[rbuRBUfF]{0,2}(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
                               |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<word>[A-Za-z_]\w*)
  | (?P<ws>\s+)
  | (?P<op>.)
""", re.S | re.X)
_PXD_NOT_MEMBER = {"ctypedef", "cppclass", "cdef", "cpdef", "enum", "struct", "union", "pass"}


def _py_tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of Python/Cython source, without comments and whitespace."""
    return [(m.lastgroup, m.group()) for m in _PY_TOKEN.finditer(text)
            if m.lastgroup not in ("comment", "ws")]


def _logical_lines(text: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """(indent, tokens) per logical line: comments dropped, bracketed continuations joined."""
    lines, pending, indent, depth = [], [], 0, 0
    for physical in text.splitlines():
        tokens = _py_tokens(physical)
        if not tokens:
            continue
        if not pending:
            indent = len(physical) - len(physical.lstrip())
        pending += tokens
        depth += sum((t in _OPEN) - (t in _CLOSE) for kind, t in tokens if kind == "op")
        if depth <= 0 and not physical.rstrip().endswith("\\"):
            lines.append((indent, [tok for tok in pending if tok != ("op", "\\")]))
            pending, depth = [], 0
    return lines


def pxd_cppclass_members(text: str, name: str) -> dict[str, str]:
    """Cython name -> C++ name of each data member declared in ``cppclass name``, in order."""
    lines = _logical_lines(text)
    for position, (indent, tokens) in enumerate(lines):
        words = [t for _, t in tokens]
        if "cppclass" in words and words[words.index("cppclass") + 1:][:1] == [name]:
            break
    else:
        raise ValueError(f"no cppclass {name}")
    members, body_indent = {}, None
    for indent_, tokens in lines[position + 1:]:
        if indent_ <= indent:
            break
        body_indent = body_indent or indent_
        if indent_ > body_indent or tokens[0][1] in _PXD_NOT_MEMBER or tokens[0][1] == "@":
            continue  # the body of a nested declaration, or not a data member
        if ("op", "(") in tokens:
            continue  # a method, constructor or operator
        for part in _split_py_commas(tokens):
            cname = next((ast.literal_eval(t) for k, t in part if k == "string"), None)
            cython_name = _last_word_outside_brackets(part, tokens)
            members[cython_name] = cname or cython_name
    return members


def _split_py_commas(tokens: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    parts, current, depth = [], [], 0
    for kind, token in tokens:
        if kind == "op":
            depth += (token in _OPEN) - (token in _CLOSE)
            if token == "," and depth == 0:
                parts.append(current)
                current = []
                continue
        current.append((kind, token))
    parts.append(current)
    return parts


def _last_word_outside_brackets(part, line) -> str:
    words, depth = [], 0
    for kind, token in part:
        if kind == "op":
            depth += (token in _OPEN) - (token in _CLOSE)
        elif kind == "word" and depth == 0 and token != "const":
            words.append(token)
    if not words:
        raise ValueError(f"no member name in declaration: {' '.join(t for _, t in line)}")
    return words[-1]


# ---- device.pxi: the keys of the dict literal _device_dict returns -----------------------------

def device_dict_entries(text: str, function: str) -> list[tuple[str, set[str]]]:
    """(key, members of the DeviceInfo argument that its value reads) per entry of the dict
    literal that ``function`` returns, in order."""
    match = re.search(rf"^[ \t]*c?p?def\b[^\n(]*\b{function}\s*\(([^)]*)\)", text, re.M)
    if match is None:
        raise ValueError(f"no function {function}")
    params = [p.split()[-1].lstrip("*&") for p in match.group(1).split(",") if p.strip()]
    if len(params) != 1:
        raise ValueError(f"{function} should take the DeviceInfo only, takes {params}")
    tokens = _py_tokens(text[match.end():])
    words = [token for _, token in tokens]
    end = next((i for i, w in enumerate(words) if w in ("def", "cdef", "cpdef", "class")),
               len(words))
    if "return" not in words[:end] or words[words.index("return") + 1] != "{":
        raise ValueError(f"{function} does not return a dict literal; list its keys literally "
                         "so this test can read them")
    start = words.index("return") + 1
    body = tokens[start + 1:start + _matching(words[start:], 0)]
    return [_dict_entry(entry, params[0], function) for entry in _split_py_commas(body) if entry]


def _dict_entry(entry, param: str, function: str) -> tuple[str, set[str]]:
    if len(entry) < 3 or entry[0][0] != "string" or entry[1][1] != ":" or entry[0][1][0] in "fF":
        raise ValueError(f"{function}: entry '{' '.join(t for _, t in entry)}' has no literal "
                         "string key")
    reads = {entry[j + 2][1] for j in range(2, len(entry) - 2)
             if entry[j] == ("word", param) and entry[j + 1][1] == "." and entry[j - 1][1] != "."}
    return ast.literal_eval(entry[0][1]), reads


# ---- the comparison ----------------------------------------------------------------------------

def _field(member: str) -> str:
    return RENAMED.get(member, member)


def _label(field: str, members: list[str]) -> str:
    """The field, with the C++ members it comes from when they are named differently."""
    sources = [m for m in members if _field(m) == field]
    return f"{field} (C++ {', '.join(sources)})" if sources not in ([], [field]) else field


def _missing_report(lists: dict[str, list[str]], label=lambda name: name) -> list[str]:
    """'name: missing from A, B (present in C)' for each name not in every list."""
    every = {name for names in lists.values() for name in names}
    report = []
    for name in sorted(every):
        missing = [SOURCE_NAMES[s] for s, names in lists.items() if name not in names]
        if missing:
            present = [SOURCE_NAMES[s] for s, names in lists.items() if name in names]
            report.append(f"{label(name)}: missing from {', '.join(missing)} "
                          f"(present in {', '.join(present)})")
    return report


def _duplicates(source: str, names: list[str]) -> list[str]:
    seen = set()
    twice = sorted({n for n in names if n in seen or seen.add(n)})
    return [f"{SOURCE_NAMES[source]} lists {', '.join(twice)} more than once"] if twice else []


def mismatches(header: str, pxd: str, bindings: str, python_fields, dummy_fields) -> list[str]:
    """Every disagreement between the five lists, one line each, naming the field and where it
    is missing; empty when they agree."""
    members = cpp_struct_members(header, STRUCT)
    declared = pxd_cppclass_members(pxd, STRUCT)
    entries = device_dict_entries(bindings, DICT_FUNCTION)
    keys = [key for key, _ in entries]

    report = [f"{SOURCE_NAMES['header']}: {kind} table names '{m}', which is not a member of "
              f"{STRUCT}" for kind, table in (("RENAMED", RENAMED), ("NATIVE_ONLY", NATIVE_ONLY))
              for m in table if m not in members]
    report += _duplicates("dict", keys) + _duplicates("python", list(python_fields))

    # The .pxd declares every member that Python reads, under its C++ name.
    exposed = [m for m in members if m not in NATIVE_ONLY]
    report += _missing_report({"header": exposed, "pxd": list(declared.values())},
                              lambda m: f"member {m}")

    # Each declared member feeds the dict entry named after it (through RENAMED).
    read_into = {declared.get(m, m): key for key, reads in entries for m in reads}
    for member in declared.values():
        if member in NATIVE_ONLY:
            continue
        if member not in read_into:
            report.append(f"member {member}: declared in {SOURCE_NAMES['pxd']} but never read "
                          f"by {SOURCE_NAMES['dict']}")
        elif read_into[member] != _field(member):
            report.append(f"member {member}: {SOURCE_NAMES['dict']} stores it as "
                          f"'{read_into[member]}', expected '{_field(member)}' (RENAMED table)")
    for member in read_into:
        if member not in declared.values():
            report.append(f"member {member}: read by {SOURCE_NAMES['dict']} but not declared in "
                          f"{SOURCE_NAMES['pxd']}")

    # The Python field names: from the header (renamed), the dict, and the two Python lists.
    fields = list(dict.fromkeys(_field(m) for m in exposed))
    report += _missing_report({"header": fields, "dict": keys, "python": list(python_fields),
                               "dummy": list(dummy_fields)}, lambda f: _label(f, exposed))
    return report


def _real_sources() -> tuple:
    return (HEADER.read_text(), PXD.read_text(), DEVICE_PXI.read_text(), DEVICE_INFO_FIELDS,
            list(dummy_device_fields()))


def test_device_info_fields_all_sources_agree():
    report = mismatches(*_real_sources())
    assert not report, ("DeviceInfo fields disagree (fix the listed places, or extend RENAMED / "
                        "NATIVE_ONLY in this test for a deliberate difference):\n  "
                        + "\n  ".join(report))


def test_device_info_fields_parsed_from_each_source_are_plausible():
    """Guards against a parser that silently finds nothing (which would 'agree' trivially)."""
    header, pxd, bindings, _, _ = _real_sources()
    assert len(cpp_struct_members(header, STRUCT)) >= len(DEVICE_INFO_FIELDS)
    assert len(pxd_cppclass_members(pxd, STRUCT)) >= len(DEVICE_INFO_FIELDS)
    assert len(device_dict_entries(bindings, DICT_FUNCTION)) == len(DEVICE_INFO_FIELDS)


PROBE = "probe_field"
# (source, edit adding PROBE there only: a regex and what follows its first match, a place the
# report must say PROBE is missing from)
_EDITS = [
    ("header", (r"struct DeviceInfo\b[^{;]*\{", "\n    uint32_t probe_field = 0;"),
     "c_device_info.pxd"),
    ("pxd", (r"cppclass DeviceInfo\b[^\n]*:", "\n        uint32_t probe_field"), "device_info.hpp"),
    ("bindings", (r"\b_device_dict\(.*?return \{", '"probe_field": 0,'), "DEVICE_INFO_FIELDS"),
    ("python", None, "dummy_device_fields()"),
    ("dummy", None, "DEVICE_INFO_FIELDS"),
]


@pytest.mark.parametrize("source, edit, missing_from", _EDITS, ids=[e[0] for e in _EDITS])
def test_device_info_fields_field_added_to_one_source_is_reported(source, edit, missing_from):
    header, pxd, bindings, python_fields, dummy_fields = _real_sources()
    texts = {"header": header, "pxd": pxd, "bindings": bindings}
    if edit is not None:
        anchor = re.search(edit[0], texts[source], re.S)
        assert anchor, f"the edit anchor {edit[0]!r} is gone; update _EDITS"
        texts[source] = texts[source][:anchor.end()] + edit[1] + texts[source][anchor.end():]
    python_fields = list(python_fields) + [PROBE] * (source == "python")
    dummy_fields = list(dummy_fields) + [PROBE] * (source == "dummy")
    report = mismatches(texts["header"], texts["pxd"], texts["bindings"], python_fields,
                        dummy_fields)
    assert any(PROBE in line and missing_from in line.split(" (present in")[0]
               for line in report), report


def test_device_info_fields_rename_not_applied_in_dict_is_reported():
    header, pxd, bindings, python_fields, dummy_fields = _real_sources()
    assert '"dev_index": d.index' in bindings, "the edit anchor is gone; update this test"
    bindings = bindings.replace('"dev_index": d.index', '"index": d.index', 1)
    report = "\n".join(mismatches(header, pxd, bindings, python_fields, dummy_fields))
    assert "member index: device.pxi _device_dict stores it as 'index'" in report
    assert "dev_index (C++ index): missing from device.pxi _device_dict" in report


# ---- the parsers on awkward input --------------------------------------------------------------

def test_cpp_struct_members_tricky_declarations_found_in_order():
    text = r"""
    #pragma once
    #define BRACE { ;
    namespace ns {
    struct Other { int not_me = 0; };
    struct DeviceInfo;  // a forward declaration
    /* struct DeviceInfo { int commented_out; }; */
    // struct DeviceInfo { int commented_out_too; };
    struct DeviceInfo final : Base {
      public:
        int index = 0;  // trailing comment; with, punctuation {
        uint32_t a = 0, b = 0 /* , not_c */, c{3};
        std::array<uint32_t, 3> arr{};
        std::map<int, std::pair<int, int>> m = {{1, {2, 3}}}, m2;
        const char* name = "x; y, z {";
        unsigned flags : 4, more : 4;
        [[maybe_unused]] alignas(16) float grid[2][3];
        static constexpr int kCount = 3;
        enum class Kind { A, B } kind = Kind::A;
        struct Inner { int hidden; };
        struct Pair { int hidden_too; } pair;
        std::string reason() const;
        int twice() const { return index * 2; }
        DeviceInfo() = default;
        bool operator==(const DeviceInfo&) const = default;
        using Alias = int;
        std::function<void(int)> callback;
      private:
        int shifted = 1 << 2, after_shift = 3 < 4;
    };
    }
    """
    assert cpp_struct_members(text, "DeviceInfo") == [
        "index", "a", "b", "c", "arr", "m", "m2", "name", "flags", "more", "grid", "kind",
        "pair", "callback", "shifted", "after_shift"]


def test_pxd_cppclass_members_tricky_declarations_found_in_order():
    text = '''
cdef extern from "x.hpp" namespace "vkdispatch":
    cdef cppclass Other:
        int not_me

    cdef cppclass DeviceInfo:
        # int commented_out
        int index  # trailing comment, with a comma
        uint32_t a, b, c
        map[int, pair[int, int]] m, m2
        const char* name
        float grid[3]
        int renamed "c_name"
        vector[int] spread_over(
            int x)
        string unsuitable_reason() const
        @staticmethod
        DeviceInfo make()
        cppclass Nested:
            int hidden
        int last

    cdef cppclass After:
        int not_me_either
'''
    assert pxd_cppclass_members(text, "DeviceInfo") == {
        "index": "index", "a": "a", "b": "b", "c": "c", "m": "m", "m2": "m2", "name": "name",
        "grid": "grid", "renamed": "c_name", "last": "last"}


def test_device_dict_entries_keys_and_read_members_found():
    text = '''
cdef dict _other(DeviceInfo d):
    return {"not_me": d.a}

cdef dict _device_dict(const DeviceInfo& info):
    # a comment { with a brace
    return {
        "a": info.a,  # trailing, comment
        'b': <int>info.b_member,
        "pair": (info.first, [info.v[i].x for i in range(info.v.size())]),
        "text": "info.not_read, {",
        "nested": {"k": other.info.not_read_either},
        "uuid": bytes(info.uuid) if info.has_uuid else None,
    }
'''
    assert device_dict_entries(text, "_device_dict") == [
        ("a", {"a"}), ("b", {"b_member"}), ("pair", {"first", "v"}), ("text", set()),
        ("nested", set()), ("uuid", {"uuid", "has_uuid"})]
