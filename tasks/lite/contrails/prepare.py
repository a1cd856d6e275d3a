"""Generate synthetic infrared satellite frames with contrails and their pixel masks.

Each 64x64 frame has three brightness-temperature bands (kelvin), modelled on the
8.4, 11.2 and 12.3 micrometre channels of a geostationary imager. A frame holds a
smooth surface-temperature field, cold cloud decks with sharp edges, a water-vapour
field that shifts the bands against each other, broad patches of natural cirrus,
sensor noise and, in most frames, a few thin, straight or gently curved contrails.
Ice (cirrus and contrails) cools the 12.3 micrometre band more than the 11.2 one;
clouds cool all bands alike. Only contrail pixels are labelled.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab.taskkit.secret import secret_rng

SIZE = 64
N_TRAIN = 1200
N_TEST = 400
# How each kind of structure shows in the bands (8.4, 11.2, 12.3 um).
CLOUD = np.array([1.0, 1.0, 1.0])
VAPOUR = np.array([-1.6, 0.0, -1.0])
ICE = np.array([-0.8, -1.0, -1.35])
NOISE_K = 0.15
SEGMENTS = 12


def _smooth(rng: np.random.Generator, slope: float) -> np.ndarray:
    """A periodic random field with a power-law spectrum, scaled to unit variance."""
    freq = np.fft.fftfreq(SIZE)
    radius = np.hypot(freq[:, None], freq[None, :])
    radius[0, 0] = np.inf
    spectrum = np.fft.fft2(rng.standard_normal((SIZE, SIZE))) * radius ** (-slope / 2)
    field = np.fft.ifft2(spectrum).real
    unit: np.ndarray = (field - field.mean()) / field.std()
    return unit


def _curve(rng: np.random.Generator) -> np.ndarray:
    """Corners of a polyline along a gently curved (quadratic Bezier) line near the frame."""
    length = rng.uniform(18, 90)
    angle = rng.uniform(0, np.pi)
    centre = rng.uniform(4, SIZE - 4, size=2)
    direction = np.array([np.cos(angle), np.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    shift = rng.uniform(-0.5, 0.5) * length
    start = centre + direction * (shift - length / 2)
    end = centre + direction * (shift + length / 2)
    control = (start + end) / 2 + normal * rng.normal(0, 0.08) * length
    t = np.linspace(0, 1, SEGMENTS + 1)[:, None]
    corners: np.ndarray = (1 - t) ** 2 * start + 2 * (1 - t) * t * control + t**2 * end
    return corners


def _contrail(rng: np.random.Generator, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ice cooling (kelvin, in the 11.2 um band) and the label mask of one contrail."""
    corners = _curve(rng)
    start, step = corners[:-1], np.diff(corners, axis=0)
    # Distance from every pixel centre to every segment of the polyline.
    t = np.einsum("psk,sk->ps", pixels[:, None, :] - start, step) / (step**2).sum(axis=1)
    nearest = start + np.clip(t, 0, 1)[..., None] * step
    distance = np.linalg.norm(pixels[:, None, :] - nearest, axis=-1).min(axis=1)
    distance = distance.reshape(SIZE, SIZE)
    width = rng.uniform(1.0, 3.0)
    sigma = width / 2.355  # the cooling's full width at half maximum is `width`
    # Contrails thin out unevenly along their length.
    strength = rng.uniform(0.8, 5.0) * (1 + 0.25 * _smooth(rng, 3.0))
    cooling = np.clip(strength, 0, None) * np.exp(-(distance**2) / (2 * sigma**2))
    mask = distance <= max(width / 2, 0.5)
    return cooling, mask


def _frame(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij")
    pixels = np.stack([rows.ravel(), cols.ravel()], axis=1).astype(np.float64)
    surface = rng.uniform(270, 295) + rng.uniform(1, 4) * _smooth(rng, 4.0)
    deck = rng.uniform(-0.5, 1.5)
    cloud_cover = 1 / (1 + np.exp(-(_smooth(rng, 3.5) - deck) / rng.uniform(0.05, 0.3)))
    cloud = -rng.uniform(10, 40) * cloud_cover
    vapour = rng.uniform(0.5, 1.5) + rng.uniform(0.2, 1.0) * _smooth(rng, 3.0)
    cirrus = rng.uniform(0, 8) * np.clip(_smooth(rng, 3.0) - rng.uniform(0.3, 1.5), 0, None)
    ice = cirrus
    mask = np.zeros((SIZE, SIZE), dtype=bool)
    if rng.random() > 0.3:
        for _ in range(rng.integers(1, 5)):
            cooling, line = _contrail(rng, pixels)
            ice = ice + cooling
            mask |= line
    bands = (
        (surface + cloud)[None] * CLOUD[:, None, None]
        + vapour[None] * VAPOUR[:, None, None]
        + ice[None] * ICE[:, None, None]
        + rng.normal(0, NOISE_K, size=(3, SIZE, SIZE))
    )
    return bands.astype(np.float32), mask


def _frames(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = [_frame(rng) for _ in range(n)]
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs]).astype(np.uint8)


def prepare(public: Path, private: Path) -> None:
    rng = secret_rng("contrails")
    ids = rng.choice(np.arange(100_000, 1_000_000), size=N_TRAIN + N_TEST, replace=False)
    train_images, train_masks = _frames(rng, N_TRAIN)
    test_images, test_masks = _frames(rng, N_TEST)
    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    np.savez(public / "train.npz", ids=ids[:N_TRAIN], images=train_images, masks=train_masks)
    np.savez(public / "test.npz", ids=ids[N_TRAIN:], images=test_images)
    np.savez(private / "answers.npz", ids=ids[N_TRAIN:], masks=test_masks)
