"""The benchmark suite: each chain as fxc spells it and as a list of
(effect, parameters) that the oracle (oracle.py) and every peer implement with
fxc's formulas (Sources/FXEffects/*.swift), on premultiplied RGBA (DESIGN §1)."""
import math
import subprocess

# Parameters spelled out in full so every implementation uses the same numbers.
SEPIA = ("sepia", {"amount": 1.0})
VIGNETTE = ("vignette", {"intensity": 1.0, "radius": 0.75})
WAVE = ("wave", {"amplitude": 10.0, "wavelength": 60.0})
CHROMATIC = ("chromaticAberration", {"amount": 6.0})

SUITE = [
    ("colour", [("contrast", {"amount": 1.2}), ("saturation", {"amount": 1.2}), SEPIA, VIGNETTE]),
    ("blur σ3 + grade", [("gaussianBlur", {"sigma": 3.0}), ("contrast", {"amount": 1.2}), ("gamma", {"power": 0.8})]),
    ("pixelate + vignette", [("pixelate", {"amount": 1.0, "blockSize": 16.0}), VIGNETTE]),
    ("wave + chromatic aberration", [WAVE, CHROMATIC]),
    ("blur σ10", [("gaussianBlur", {"sigma": 10.0})]),
    ("unsharp", [("unsharpMask", {"sigma": 1.5, "amount": 0.8})]),
]
FX_BASELINE = ("sepia (ImageMagick -fx)", [SEPIA])  # the per-pixel expression -fx evaluates


def suite(fxc):
    """SUITE as far as this fxc's catalogue (`fxc effects`) has the effects:
    a chain with a missing effect is dropped, and said so."""
    names = {line.split()[0] for line in subprocess.run([fxc, "effects"], check=True, capture_output=True,
                                                           text=True).stdout.splitlines() if line[:1].isalpha()}
    kept = []
    for label, ops in SUITE:
        missing = [n for n, _ in ops if n not in names]
        if missing:
            print(f"warning: fxc has no {', '.join(missing)}: chain '{label}' left out")
        else:
            kept.append((label, ops))
    return kept


def fxc_chain(ops):
    """The chain as `fxc run --chain` reads it."""
    def arg(v):
        return str(int(v)) if v == int(v) else repr(v)
    return " | ".join(f"{name}({', '.join(f'{k}: {arg(v)}' for k, v in params.items())})" for name, params in ops)


def gaussian_weights(sigma):
    """fxc's gaussianWeights: taps −r…r, r = ceil(3σ), exp(−i²/2σ²), normalised."""
    r = math.ceil(3 * sigma)
    w = [math.exp(-i * i / (2 * sigma * sigma)) for i in range(-r, r + 1)]
    s = sum(w)
    return [v / s for v in w]


SEPIA_MATRIX = [(0.393, 0.769, 0.189), (0.349, 0.686, 0.168), (0.272, 0.534, 0.131)]
LUMA = (0.213, 0.715, 0.072)


def color_matrix(name, p):
    """A color effect that is a 3×3 matrix plus an offset per unit of alpha
    (before its clamp to 0…alpha), or None: sepia, brightness, contrast,
    saturation, exposure. On straight colour the same matrix and offset apply
    with the clamp to 0…1."""
    ident = [[float(i == j) for j in range(3)] for i in range(3)]
    if name == "sepia":
        t = p["amount"]
        return [[ident[i][j] + (SEPIA_MATRIX[i][j] - ident[i][j]) * t for j in range(3)] for i in range(3)], [0.0] * 3
    if name == "brightness":
        return ident, [p["amount"]] * 3
    if name == "contrast":
        k = p["amount"]
        return [[k * ident[i][j] for j in range(3)] for i in range(3)], [0.5 * (1 - k)] * 3
    if name == "saturation":
        s = p["amount"]  # c + (luma − c)·(1 − s)
        return [[s * ident[i][j] + (1 - s) * LUMA[j] for j in range(3)] for i in range(3)], [0.0] * 3
    if name == "exposure":
        g = 2.0 ** p["ev"]
        return [[g * ident[i][j] for j in range(3)] for i in range(3)], [0.0] * 3
    return None


def pixelate_side(p):
    return 1 + (max(p["blockSize"], 1) - 1) * min(max(p["amount"], 0), 1)


def block_centers(n, side):
    """Sample positions (pixel-center convention, i.e. minus 0.5) of the blocks along one axis."""
    nb = math.ceil(n / side)
    return [min((b + 0.5) * side, n - 0.5) - 0.5 for b in range(nb)]
