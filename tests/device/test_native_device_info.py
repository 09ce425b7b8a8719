"""The dict the native module builds for each real device has exactly DEVICE_INFO_FIELDS as keys.

tests/unit/test_device_info_fields.py checks the same lists as source text without a GPU; this
checks what the compiled module (bindings/device.pxi) really returns.
"""
from __future__ import annotations

import pytest

from vkdispatch.base.device_info import DEVICE_INFO_FIELDS
from vkdispatch.base.init import runtime


@pytest.fixture
def native_devices(context) -> list[dict]:
    current = runtime()
    if current.native is None:
        pytest.skip(f"the {current.backend} backend has no native device list")
    devices = current.instance.devices()
    assert devices, "the instance enumerated no devices although a context exists"
    return devices


def test_native_device_dict_every_device_has_exactly_device_info_fields(native_devices):
    for fields in native_devices:
        missing = [name for name in DEVICE_INFO_FIELDS if name not in fields]
        extra = [name for name in fields if name not in DEVICE_INFO_FIELDS]
        assert not missing and not extra, (
            f"device {fields.get('dev_index')} ({fields.get('device_name')}): the dict from "
            f"_device_dict (device.pxi) lacks {missing} and has {extra}, which "
            "DEVICE_INFO_FIELDS (vkdispatch/base/device_info.py) does not list")


def test_native_device_dict_derived_fields_have_their_python_shape(native_devices):
    """The members that are renamed or merged on the way (index, queue_families, has_uuid+uuid)
    arrive in the form DeviceInfo documents."""
    assert [fields["dev_index"] for fields in native_devices] == list(range(len(native_devices)))
    for fields in native_devices:
        uuid = fields["uuid"]
        assert uuid is None or (isinstance(uuid, bytes) and len(uuid) == 16), uuid
        families = fields["queue_properties"]
        assert families and all(len(family) == 2 for family in families), families
        assert len(fields["max_workgroup_size"]) == 3
        assert len(fields["max_workgroup_count"]) == 3
