"""Kompute 0.4-0.6's Python API on kp: build_tensor, named sequences, the eval_<operation>
families, the record_<operation> helpers, get_spec_consts, and the "kp" logger."""
from __future__ import annotations

import logging

import numpy as np
import pytest
from helpers import random_array
from kp_programs import buffers, spirv

import kp
from vkdispatch.errors import InvalidArgumentError, InvalidStateError


def glsl(body: str, *declarations: str, head: str = "") -> str:
    return (f"#version 450\nlayout(local_size_x = 1) in;\n{head}\n{buffers(*declarations)}\n"
            f"void main() {{ uint i = gl_GlobalInvocationID.x; {body} }}\n")


MULTIPLY = glsl("o[i] = a[i] * b[i];", "float a", "float b", "float o")
SUBTRACT = glsl("o[i] = a[i] - b[i];", "float a", "float b", "float o")
SCALE = glsl("o[i] = a[i] * factor;", "float a", "float o",
             head="layout(constant_id = 0) const float factor = 1.0;")


def floats(rng, n=19):
    return random_array(rng, n, np.float32)


def evaluate(mgr, variant: str, operation: str, tensors, *args, **kwargs):
    """Runs ``mgr.<variant with operation>`` and, for the async ones, awaits it."""
    name = "named-sequence"
    if variant == "eval":
        getattr(mgr, f"eval_{operation}")(tensors, name, *args, **kwargs)
    elif variant == "eval_def":
        getattr(mgr, f"eval_{operation}_def")(tensors, *args, **kwargs)
    elif variant == "eval_async":
        getattr(mgr, f"eval_async_{operation}")(tensors, name, *args, **kwargs)
        assert mgr.get_create_sequence(name).is_running()
        mgr.eval_await(name)
        assert not mgr.get_create_sequence(name).is_running()
    else:
        getattr(mgr, f"eval_async_{operation}_def")(tensors, *args, **kwargs)
        assert mgr.get_create_sequence("DEFAULT").is_running()
        mgr.eval_await_def()
        assert not mgr.get_create_sequence("DEFAULT").is_running()


VARIANTS = ["eval", "eval_def", "eval_async", "eval_async_def"]


# -- the documented examples ----------------------------------------------------------------------

def test_readme_example_multiplies_the_built_tensors(mgr, rng, capsys):
    a, b = floats(rng), floats(rng)
    tensor_in_a, tensor_in_b = mgr.build_tensor(a), mgr.build_tensor(b)
    tensor_out = mgr.build_tensor(np.zeros(len(a)))
    mgr.eval_algo_data_def([tensor_in_a, tensor_in_b, tensor_out], spirv(MULTIPLY))
    mgr.eval_tensor_sync_local_def([tensor_out])
    print(tensor_out.data().tolist())
    assert capsys.readouterr().out == f"{(a * b).tolist()}\n"


# -- build_tensor and rebuild_tensors -------------------------------------------------------------

def test_build_tensor_uploads_its_data(mgr, rng):
    x = floats(rng)
    tensor, out = mgr.build_tensor(x), mgr.build_tensor(np.zeros(len(x)))
    mgr.sequence().eval(kp.OpAlgoDispatch(mgr.algorithm(
        [tensor, out], spirv(glsl("o[i] = a[i];", "float a", "float o")))))
    mgr.eval_tensor_sync_local_def([out])
    np.testing.assert_array_equal(out.data(), x)
    assert tensor.data_type() == kp.float and tensor.memory_type() == kp.device


def test_rebuild_tensors_uploads_the_host_data_again(mgr, rng):
    x, y = floats(rng), floats(rng)
    tensor, out = mgr.build_tensor(x), mgr.build_tensor(np.zeros(len(x)))
    tensor.data()[:] = y
    mgr.rebuild_tensors([tensor])
    mgr.eval_algo_str_def([tensor, out], glsl("o[i] = a[i];", "float a", "float o"))
    mgr.eval_tensor_sync_local_def([out])
    np.testing.assert_array_equal(out.data(), y)


def test_rebuild_tensors_refuses_a_destroyed_tensor(mgr):
    live, gone = mgr.build_tensor([1.5]), mgr.build_tensor([2.5])
    gone.destroy()
    with pytest.raises(InvalidArgumentError, match=r"rebuild_tensors: tensors\[1\] was destroyed"):
        mgr.rebuild_tensors([live, gone])
    with pytest.raises(TypeError, match="tensors must be a list of kp.Tensor"):
        mgr.rebuild_tensors(live)


# -- the eval families ----------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("operation", ["tensor_create", "tensor_sync_device"])
def test_upload_then_download_round_trips(mgr, rng, variant, operation):
    x = floats(rng)
    tensor = mgr.tensor(x)
    evaluate(mgr, variant, operation, [tensor])
    tensor.data()[:] = 0
    evaluate(mgr, variant, "tensor_sync_local", [tensor])
    np.testing.assert_array_equal(tensor.data(), x)


@pytest.mark.parametrize("variant", VARIANTS)
def test_tensor_copy_copies_device_and_host_data(mgr, rng, variant):
    x = floats(rng)
    source, targets = mgr.build_tensor(x), [mgr.build_tensor(np.zeros(len(x))) for _ in range(2)]
    evaluate(mgr, variant, "tensor_copy", [source, *targets])
    for target in targets:
        np.testing.assert_array_equal(target.data(), x)
        target.data()[:] = 0
    mgr.eval_tensor_sync_local_def(targets)
    for target in targets:
        np.testing.assert_array_equal(target.data(), x)


@pytest.mark.parametrize("variant", VARIANTS)
def test_algo_mult_multiplies_and_downloads_the_output(mgr, rng, variant):
    a, b = floats(rng), floats(rng)
    out = mgr.build_tensor(np.zeros(len(a)))
    evaluate(mgr, variant, "algo_mult", [mgr.build_tensor(a), mgr.build_tensor(b), out])
    np.testing.assert_array_equal(out.data(), a * b)


SHADER_FORMS = {
    "algo_data": [lambda source, path: spirv(source), lambda source, path: source.encode(),
                  lambda source, path: source],
    "algo_str": [lambda source, path: source, lambda source, path: list(source)],
    "algo_file": [lambda source, path: write(path / "shader.comp", source.encode()),
                  lambda source, path: write(path / "shader.spv", spirv(source))],
}


def write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("operation, form", [(op, i) for op, forms in SHADER_FORMS.items()
                                             for i in range(len(forms))])
def test_algo_dispatches_each_form_of_shader(mgr, rng, tmp_path, variant, operation, form):
    a, b = floats(rng), floats(rng)
    tensors = [mgr.build_tensor(a), mgr.build_tensor(b), mgr.build_tensor(np.zeros(len(a)))]
    evaluate(mgr, variant, operation, tensors, SHADER_FORMS[operation][form](MULTIPLY, tmp_path))
    assert not np.any(tensors[2].data())  # not downloaded
    mgr.eval_tensor_sync_local_def(tensors[2:])
    np.testing.assert_array_equal(tensors[2].data(), a * b)


@pytest.mark.parametrize("variant", VARIANTS)
def test_algo_lro_dispatches_and_downloads_the_output(mgr, rng, variant):
    a, b = floats(rng), floats(rng)
    out = mgr.build_tensor(np.zeros(len(a)))
    evaluate(mgr, variant, "algo_lro", [mgr.build_tensor(a), mgr.build_tensor(b), out], SUBTRACT)
    np.testing.assert_array_equal(out.data(), a - b)


def test_algo_workgroup_and_constants_reach_the_dispatch(mgr, rng):
    x, factor = floats(rng, 16), float(rng.uniform(2, 3))
    source = SCALE.replace("local_size_x = 1", "local_size_x = 4")
    out = mgr.build_tensor(np.zeros(16))
    mgr.eval_algo_str_def([mgr.build_tensor(x), out], source, (4, 1, 1), [factor])
    mgr.eval_tensor_sync_local_def([out])
    np.testing.assert_array_equal(out.data(), x * np.float32(factor))


def test_eval_runs_on_the_named_sequence_and_starts_it_over(mgr, rng):
    a, b = floats(rng), floats(rng)
    tensors = [mgr.build_tensor(a), mgr.build_tensor(b), mgr.build_tensor(np.zeros(len(a)))]
    mgr.eval_algo_lro(tensors, "mine", SUBTRACT)
    tensors[0].data()[:] = b
    mgr.eval_tensor_sync_device([tensors[0]], "mine")
    tensors[2].data()[:] = 7
    mgr.get_create_sequence("mine").eval()  # only the upload runs again
    np.testing.assert_array_equal(tensors[2].data(), 7)


def test_bad_arguments_leave_the_sequence_as_it_was(mgr, rng):
    a, b = floats(rng), floats(rng)
    tensors = [mgr.build_tensor(a), mgr.build_tensor(b), mgr.build_tensor(np.zeros(len(a)))]
    mgr.eval_algo_lro(tensors, "kept", SUBTRACT)
    with pytest.raises(TypeError):
        mgr.eval_algo_data(tensors, "kept", 12)
    tensors[2].data()[:] = 0
    mgr.get_create_sequence("kept").eval()
    np.testing.assert_array_equal(tensors[2].data(), a - b)


def test_a_second_async_before_the_await_raises(mgr, rng):
    tensor = mgr.build_tensor(floats(rng))
    mgr.eval_async_tensor_sync_local_def([tensor])
    with pytest.raises(InvalidStateError, match="still running"):
        mgr.eval_async_tensor_sync_local_def([tensor])
    mgr.eval_await_def()


def test_eval_await_of_an_unknown_sequence_logs_a_warning(mgr, caplog):
    with caplog.at_level(logging.WARNING, logger="kp"):
        mgr.eval_await("never-made")
    (record,) = caplog.records
    assert record.name == "kp" and "'never-made'" in record.getMessage()
    with pytest.raises(TypeError, match="wait_for"):
        mgr.eval_await_def(wait_for=-1)


@pytest.mark.parametrize("call, args, error, message", [
    ("eval_algo_data_def", (12,), TypeError, "eval_algo_data_def: shader must be SPIR-V or GLSL "
                                             "source as bytes .* got int"),
    ("eval_algo_data_def", (b"\xff\xfe\x00\x01",), InvalidArgumentError,
     r"shader is neither SPIR-V .* it starts with b'\\xff\\xfe\\x00\\x01'"),
    ("eval_algo_str_def", (["ab", "c"],), TypeError, "shader must be GLSL source, a str or a "
                                                     "list of characters, got list"),
    ("eval_algo_file_def", ("/no/such/shader.comp",), FileNotFoundError,
     "eval_algo_file_def: shader: cannot read the shader file"),
    ("eval_algo_file_def", (3.5,), TypeError, "shader must be a file path .* got float"),
    ("eval_algo_str_def", ("#version 450\nvoid main() { x = 1; }",), RuntimeError,
     "undeclared identifier"),
])
def test_bad_shaders_raise_naming_the_argument(mgr, call, args, error, message):
    tensors = [mgr.build_tensor([1.0]) for _ in range(3)]
    with pytest.raises(error, match=message):
        getattr(mgr, call)(tensors, *args)


@pytest.mark.parametrize("operation", ["algo_mult", "algo_lro"])
def test_lhs_rhs_out_operations_need_three_tensors(mgr, operation):
    args = () if operation == "algo_mult" else (SUBTRACT,)
    with pytest.raises(InvalidArgumentError, match=r"tensors must be \[lhs, rhs, out\], 3 "
                                                   "tensors, got 2"):
        getattr(mgr, f"eval_{operation}_def")([mgr.build_tensor([1.0])] * 2, *args)


def test_tensors_must_be_a_list(mgr):
    tensor = mgr.build_tensor([1.0])
    with pytest.raises(TypeError, match="eval_tensor_sync_device_def: tensors must be a list"):
        mgr.eval_tensor_sync_device_def(tensor)
    with pytest.raises(TypeError, match=r"record_tensor_copy: tensors\[1\] must be a kp.Tensor"):
        mgr.sequence().record_tensor_copy([tensor, 3])


# -- named sequences and begin/end ---------------------------------------------------------------

def test_named_sequences(mgr, caplog):
    sequence = mgr.create_sequence("named")
    assert mgr.get_create_sequence("named") is sequence
    with caplog.at_level(logging.WARNING, logger="kp"):
        other = mgr.create_sequence("named")
    assert other is not sequence and mgr.get_create_sequence("named") is sequence
    assert [r.name for r in caplog.records] == ["kp"]
    made = mgr.get_create_sequence("made")
    assert made.is_init() and mgr.get_create_sequence("made") is made
    with pytest.raises(TypeError, match="name must be a str, got int"):
        mgr.create_sequence(5)


def test_record_helpers_between_begin_and_end(mgr, rng):
    a, b = floats(rng), floats(rng)
    tensors = [mgr.tensor(a), mgr.tensor(b), mgr.tensor(np.zeros(len(a)))]
    sequence = mgr.create_sequence("helpers")
    assert sequence.begin() and sequence.is_rec()
    assert sequence.record_tensor_sync_device(tensors[:2]) is sequence
    sequence.record_algo_data(tensors, MULTIPLY).record_tensor_sync_local(tensors[2:])
    assert sequence.end() and not sequence.is_rec()
    sequence.eval()
    np.testing.assert_array_equal(tensors[2].data(), a * b)


def test_begin_starts_over_and_repeats_warn(mgr, rng, caplog):
    x = floats(rng)
    tensor = mgr.build_tensor(x)
    sequence = mgr.sequence()
    sequence.begin()
    sequence.record_algo_str([tensor], glsl("a[i] += 1.0;", "float a"))
    sequence.end()
    sequence.eval()
    sequence.begin()  # drops the dispatch: rerecord() records only the download
    sequence.record_tensor_sync_local([tensor])
    sequence.end()
    sequence.rerecord()
    sequence.eval()
    np.testing.assert_array_equal(tensor.data(), x + np.float32(1))
    with caplog.at_level(logging.WARNING, logger="kp"):
        assert sequence.end() is False
        sequence.begin()
        assert sequence.begin() is False
    assert [r.name for r in caplog.records] == ["kp", "kp"]


def test_begin_while_running_raises(mgr):
    sequence = mgr.sequence()
    sequence.eval_async(kp.OpSyncDevice([mgr.tensor([1.0])]))
    with pytest.raises(InvalidStateError, match="still running"):
        sequence.begin()
    sequence.eval_await()


# -- Algorithm.get_spec_consts ---------------------------------------------------------------------

def test_get_spec_consts(mgr, rng):
    tensors = [mgr.tensor([1.0]), mgr.tensor([0.0])]
    values = rng.uniform(-9, 9, 2).astype(np.float32)
    algorithm = mgr.algorithm(tensors, spirv(SCALE), spec_consts=values.tolist())
    assert algorithm.get_spec_consts() == values.tolist()
    ints = rng.integers(-99, 99, 2).astype(np.int32)
    algorithm = mgr.algorithm(tensors, spirv(SCALE), spec_consts=ints,
                              push_consts=np.array([], np.int32))
    assert algorithm.get_spec_consts() == ints.tolist()
    assert all(type(v) is int for v in algorithm.get_spec_consts())
    assert mgr.algorithm(tensors, spirv(SCALE)).get_spec_consts() == []
    kp.OpMult([mgr.tensor([2.0]), mgr.tensor([3.0]), mgr.tensor([0.0])], algorithm)
    assert algorithm.get_spec_consts() == []


# -- the kp logger ---------------------------------------------------------------------------------

def test_kp_records_go_to_the_kp_logger(mgr, caplog):
    with caplog.at_level(logging.DEBUG, logger="kp"), \
            caplog.at_level(logging.DEBUG, logger="vkdispatch"):
        manager = kp.Manager(0, [], ["VK_KHR_not_a_real_extension"])
        manager.destroy()
    native = [r for r in caplog.records if "VK_KHR_not_a_real_extension" in r.getMessage()]
    assert [r.name for r in native] == ["kp"]
    assert any(r.name == "kp" and r.getMessage().startswith("kp.Manager: device 0")
               for r in caplog.records)


def test_log_level_counts_as_kompute_did():
    logger = logging.getLogger("kp")
    before = logger.level
    try:
        for level, expected in enumerate([logging.DEBUG, logging.DEBUG, logging.INFO,
                                          logging.WARNING, logging.ERROR]):
            kp.log_level(level)
            assert logger.level == expected
    finally:
        logger.setLevel(before)
    for bad in (5, -1, True, 1.0):
        with pytest.raises(InvalidArgumentError, match="level must be an int from 0"):
            kp.log_level(bad)
