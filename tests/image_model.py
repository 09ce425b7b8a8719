"""A numpy model of Vulkan image sampling (what ``texture()`` returns), for 1-3-D images and
layered 2-D images, any filter, address mode and border colour: the independent reference the
image tests compare against. Arrays are numpy-ordered, so coordinate x runs along the last axis.
"""
from __future__ import annotations

import itertools

import numpy as np

import vkdispatch as vd

BORDERS = {vd.BorderColor.FLOAT_TRANSPARENT_BLACK: (0, 0, 0, 0),
           vd.BorderColor.INT_TRANSPARENT_BLACK: (0, 0, 0, 0),
           vd.BorderColor.FLOAT_OPAQUE_BLACK: (0, 0, 0, 1),
           vd.BorderColor.INT_OPAQUE_BLACK: (0, 0, 0, 1),
           vd.BorderColor.FLOAT_OPAQUE_WHITE: (1, 1, 1, 1),
           vd.BorderColor.INT_OPAQUE_WHITE: (1, 1, 1, 1)}


def address(index: np.ndarray, size: int, mode: vd.AddressMode) -> np.ndarray:
    """Texel index after the address mode (CLAMP_TO_BORDER: -1 marks the border)."""
    if mode is vd.AddressMode.REPEAT:
        return np.mod(index, size)
    if mode is vd.AddressMode.MIRRORED_REPEAT:
        period = np.mod(index, 2 * size)
        return np.where(period < size, period, 2 * size - 1 - period)
    if mode is vd.AddressMode.CLAMP_TO_BORDER:
        return np.where((index < 0) | (index >= size), -1, index)
    if mode is vd.AddressMode.MIRROR_CLAMP_TO_EDGE:
        return np.clip(np.where(index < 0, -index - 1, index), 0, size - 1)
    return np.clip(index, 0, size - 1)


def as_rgba(image: np.ndarray, dims: int) -> np.ndarray:
    """``image`` (numpy shape of the texels, plus a channel axis when it has several) with 4
    channels, the missing ones read as Vulkan does: green and blue 0, alpha 1."""
    if image.ndim == dims:
        image = image[..., None]
    missing = 4 - image.shape[-1]
    filler = np.broadcast_to(np.array([0, 0, 1][-missing:] if missing else [], image.dtype),
                             image.shape[:-1] + (missing,))
    return np.concatenate([image.astype(np.float64), filler], axis=-1)


def texels(rgba: np.ndarray, indices: list[np.ndarray], mode, border) -> np.ndarray:
    """``rgba[z, y, x]`` at integer ``indices`` (x first) after addressing; the border colour
    where CLAMP_TO_BORDER leaves the image."""
    sizes = rgba.shape[-2::-1]  # x, y, z extents
    wrapped = [address(i, size, mode) for i, size in zip(indices, sizes)]
    inside = np.all([w >= 0 for w in wrapped], axis=0)
    values = rgba[tuple(np.maximum(w, 0) for w in reversed(wrapped))]
    return np.where(inside[:, None], values, np.asarray(BORDERS[border], np.float64))


def sample(image: np.ndarray, coords: np.ndarray, filter_: vd.Filter,
           mode: vd.AddressMode = vd.AddressMode.CLAMP_TO_EDGE,
           border: vd.BorderColor = vd.BorderColor.FLOAT_OPAQUE_WHITE,
           layered: bool = False) -> np.ndarray:
    """What ``img.sample(coord)`` returns (rows of rgba) for texel coordinates ``coords``
    (rows of x[, y[, z]], with the layer last when ``layered``); ``image`` holds the texels in
    numpy order (layers first), with a trailing channel axis when it has several channels."""
    coords = np.asarray(coords, np.float64).reshape(len(coords), -1)
    dims = coords.shape[1] - layered
    rgba = as_rgba(image, dims + layered)
    if layered:
        layer = np.clip(np.rint(coords[:, -1]).astype(int), 0, rgba.shape[0] - 1)
        rows = [sample(rgba[k], coords[layer == k, :dims], filter_, mode, border)
                for k in range(rgba.shape[0])]
        out = np.empty((len(coords), 4))
        for k, values in enumerate(rows):
            out[layer == k] = values
        return out
    position = coords[:, :dims]
    if filter_ is vd.Filter.NEAREST:
        return texels(rgba, list(np.floor(position + 0.5).astype(int).T), mode, border)
    low = np.floor(position).astype(int)
    weight = position - low
    out = np.zeros((len(coords), 4))
    for corner in itertools.product((0, 1), repeat=dims):
        factor = np.prod([w if c else 1 - w for w, c in zip(weight.T, corner)], axis=0)
        out += factor[:, None] * texels(rgba, list((low + corner).T), mode, border)
    return out


def away_from_texel_edges(coords: np.ndarray, margin: float = 0.1) -> np.ndarray:
    """``coords`` moved at least ``margin`` texels from the edges where nearest filtering
    switches texel (rounding there may go either way)."""
    edge = coords + 0.5
    return np.floor(edge) + np.clip(edge % 1, margin, 1 - margin) - 0.5
