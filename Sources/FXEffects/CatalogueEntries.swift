import FXDSL
import FXIR

// The catalogue's rows. Each repeats its function's documented defaults and
// ranges (the catalogue tests check that they agree) and builds the effect from
// one value per parameter. `example` is the chain the contact sheet shows.

extension Catalogue {
  static let colorEntries: [EffectSpec] = [
    EffectSpec(
      name: "autoLevels", kind: .color, summary: "Each channel stretched from its darkest to its brightest level (whole image).",
      parameters: []
    ) { _ in autoLevels() },
    EffectSpec(
      name: "normalize", kind: .color,
      summary: "autoLevels after clipping a share of each channel's darkest and brightest samples (whole image).",
      parameters: [
        .number("black", 2, 0...50, unit: "%", "samples clipped at the dark end", uniform: false),
        .number("white", 1, 0...50, unit: "%", "samples clipped at the bright end", uniform: false),
      ]
    ) { a in normalize(black: a.number(0).constantValue ?? 2, white: a.number(1).constantValue ?? 1) },
    EffectSpec(
      name: "equalize", kind: .color, summary: "Histogram equalisation of each channel, as Pillow's (whole image).",
      parameters: []
    ) { _ in equalize() },
    EffectSpec(
      name: "clahe", kind: .color,
      summary: "Contrast-limited adaptive equalisation of each channel, tile by tile, as OpenCV's CLAHE (whole image).",
      parameters: [
        .number("tiles", 8, 1...64, "tiles across and down", uniform: false),
        .number("clipLimit", 2, 0...40, "a bin's clip as a multiple of its mean count; 0 = no limit", uniform: false),
      ]
    ) { a in
      guard let tiles = a.number(0).constantValue, tiles.isFinite else { return .identity }  // DESIGN §5
      return clahe(tiles: Int(min(max(tiles, 1), 64)), clipLimit: a.number(1).constantValue ?? 2)
    },
    EffectSpec(
      name: "sepia", kind: .color, summary: "Sepia tone: the W3C sepia matrix, mixed with the original.",
      parameters: [.number("amount", 1, 0...1, "how much tone; 0 leaves the image unchanged")]
    ) { a in sepia(amount: a.number(0)) },
    EffectSpec(
      name: "brightness", kind: .color, summary: "Adds to every channel, like SwiftUI's brightness(_:).",
      parameters: [.number("amount", 0, -1...1, "added to each channel; 0 = unchanged")], example: "brightness(0.25)"
    ) { a in brightness(amount: a.number(0)) },
    EffectSpec(
      name: "contrast", kind: .color, summary: "Scales color around mid-gray, like SwiftUI's contrast(_:).",
      parameters: [.number("amount", 1, 0...4, "the scale; 1 = unchanged, 0 = flat gray")], example: "contrast(1.8)"
    ) { a in contrast(amount: a.number(0)) },
    EffectSpec(
      name: "saturation", kind: .color, summary: "Mixes color with its Rec. 709 luma (W3C saturate).",
      parameters: [.number("amount", 1, 0...4, "0 = gray, 1 = unchanged, more = vivid")], example: "saturation(2.5)"
    ) { a in saturation(amount: a.number(0)) },
    EffectSpec(
      name: "hueRotate", kind: .color, summary: "Rotates hue with the W3C hue-rotate matrix.",
      parameters: [.angle("angle", 0, "rotation of the hue; 0 = unchanged")], example: "hueRotate(150)"
    ) { a in hueRotate(angle: a.number(0)) },
    EffectSpec(
      name: "exposure", kind: .color, summary: "Multiplies color by 2^ev, like Core Image's CIExposureAdjust.",
      parameters: [.number("ev", 0, -10...10, unit: "stops", "exposure change; 0 = unchanged")], example: "exposure(1)"
    ) { a in exposure(ev: a.number(0)) },
    EffectSpec(
      name: "gamma", kind: .color, summary: "Raises straight color to a power, like CIGammaAdjust.",
      parameters: [.number("power", 1, 0.1...10, "the exponent; 1 = unchanged, < 1 brightens")], example: "gamma(0.5)"
    ) { a in gamma(power: a.number(0)) },
    EffectSpec(
      name: "colorMatrix", kind: .color, summary: "A 3×4 matrix on straight rgb, like CIColorMatrix.",
      parameters: ["rr", "rg", "rb", "rBias", "gr", "gg", "gb", "gBias", "br", "bg", "bb", "bBias"].map { label in
        let isBias = label.hasSuffix("Bias")
        let identity: Float = !isBias && label.first == label.last ? 1 : 0
        return .number(
          label, identity, isBias ? -1...1 : -4...4,
          isBias ? "added to \(label.prefix(1))" : "weight of \(label.suffix(1)) in \(label.prefix(1))")
      },
      example: "colorMatrix(rr: 0, rb: 1, bb: 0, br: 1)"
    ) { a in
      colorMatrix(
        rr: a.number(0), rg: a.number(1), rb: a.number(2), rBias: a.number(3), gr: a.number(4), gg: a.number(5),
        gb: a.number(6), gBias: a.number(7), br: a.number(8), bg: a.number(9), bb: a.number(10), bBias: a.number(11))
    },
    EffectSpec(
      name: "invert", kind: .color, summary: "Inverts straight color (W3C invert).",
      parameters: [.number("amount", 1, 0...1, "how much; 0 = unchanged")]
    ) { a in invert(amount: a.number(0)) },
    EffectSpec(
      name: "grayscale", kind: .color, summary: "Desaturates with Rec. 709 luma (W3C grayscale).",
      parameters: [.number("amount", 1, 0...1, "how much; 0 = unchanged")]
    ) { a in grayscale(amount: a.number(0)) },
    EffectSpec(
      name: "threshold", kind: .color, summary: "White where luma reaches the level, black elsewhere.",
      parameters: [.number("level", 0.5, 0...1, "the luma that turns white")], example: "threshold(0.3)"
    ) { a in threshold(level: a.number(0)) },
    EffectSpec(
      name: "posterize", kind: .color, summary: "Rounds each channel to a few evenly spaced levels.",
      parameters: [.number("levels", 6, 2...256, "levels per channel (rounded)")]
    ) { a in posterize(levels: a.number(0)) },
    EffectSpec(
      name: "solarize", kind: .color, summary: "Inverts the channels above a threshold (Sabattier effect).",
      parameters: [.number("threshold", 0.5, 0...1, "channels above it are inverted")]
    ) { a in solarize(threshold: a.number(0)) },
    EffectSpec(
      name: "opacity", kind: .color, summary: "Multiplies every channel, like SwiftUI's opacity(_:).",
      parameters: [.number("amount", 1, 0...1, "1 = unchanged, 0 = transparent")], example: "opacity(0.5)"
    ) { a in opacity(amount: a.number(0)) },
    EffectSpec(
      name: "srgbToLinear", kind: .color, summary: "Decodes sRGB to linear light (IEC 61966-2-1).", parameters: []
    ) { _ in srgbToLinear() },
    EffectSpec(
      name: "linearToSrgb", kind: .color, summary: "Encodes linear light as sRGB (IEC 61966-2-1).", parameters: []
    ) { _ in linearToSrgb() },
    EffectSpec(
      name: "gradientMap", kind: .color, summary: "Maps luma onto a gradient of colors (none = unchanged).",
      parameters: [
        .colors("colors", Color.sunset, "stops from dark to light; one color tints"),
        .number("amount", 1, 0...1, "mix with the original; 0 = unchanged"),
      ]
    ) { a in gradientMap(colors: a.colors(0), amount: a.number(1)) },
    EffectSpec(
      name: "dither", kind: .color, summary: "Ordered 4×4 Bayer dither to a few levels per channel.",
      parameters: [
        .number("levels", 4, 2...256, "levels per channel (rounded)"),
        .number("scale", 1, 1...64, unit: "px", "size of a pattern cell"),
      ],
      example: "dither(levels: 2, scale: 2)"
    ) { a in dither(levels: a.number(0), scale: a.number(1)) },
    EffectSpec(
      name: "scanlines", kind: .color, summary: "Darkens every few rows, like a video display.",
      parameters: [
        .number("spacing", 4, 1...100, unit: "px", "distance between lines"),
        .number("intensity", 0.5, 0...1, "darkness of the lines; 0 = unchanged"),
      ]
    ) { a in scanlines(spacing: a.number(0), intensity: a.number(1)) },
    EffectSpec(
      name: "grain", kind: .color, summary: "Film grain: hashed value noise added to the color.",
      parameters: [
        .number("amount", 0.15, 0...1, "strength; 0 = unchanged"),
        .number("size", 1.5, 0.5...50, unit: "px", "size of a grain"),
        .number("seed", 0, 0...1000, "shifts the noise; animate for moving grain"),
      ],
      example: "grain(0.3)"
    ) { a in grain(amount: a.number(0), size: a.number(1), seed: a.number(2)) },
    EffectSpec(
      name: "vignette", kind: .color, summary: "Darkens toward the corners with a smoothstep falloff.",
      parameters: [
        .number("intensity", 1, 0...1, "darkening at the corners"),
        .number("radius", 0.75, 0...1.5, "centre of the falloff, in half-diagonals from the centre"),
      ]
    ) { a in vignette(intensity: a.number(0), radius: a.number(1)) },
  ]

  static let fillEntries: [EffectSpec] = [
    EffectSpec(
      name: "checkerboard", kind: .color, summary: "Fill: a checkerboard of two colors over the image.",
      parameters: [
        .number("size", 16, 1...1000, unit: "px", "side of a square"),
        .color("first", Color(rgb: 0xe6e6e6), "color of the square at the origin"),
        .color("second", Color(rgb: 0x999999), "the other color"),
        .number("opacity", 1, 0...1, "mix over the image; 1 replaces it"),
      ],
      example: "checkerboard(opacity: 0.5)"
    ) { a in checkerboard(size: a.number(0), first: a.color(1), second: a.color(2), opacity: a.number(3)) },
    EffectSpec(
      name: "linearGradient", kind: .color, summary: "Fill: a linear gradient between two colors across the image.",
      parameters: [
        .color("from", .black, "color at the start"),
        .color("to", .white, "color at the end"),
        .angle("angle", 90, "direction; 0 = left to right, 90 = top to bottom"),
        .number("opacity", 1, 0...1, "mix over the image; 1 replaces it"),
      ],
      example: "linearGradient(#1040a0, #ffc040, angle: 30, opacity: 0.6)"
    ) { a in linearGradient(from: a.color(0), to: a.color(1), angle: a.number(2), opacity: a.number(3)) },
    EffectSpec(
      name: "noise", kind: .color, summary: "Fill: gray fractal value noise (four octaves).",
      parameters: [
        .number("scale", 32, 1...1000, unit: "px", "size of the largest features"),
        .number("seed", 0, 0...1000, "shifts the noise"),
        .number("opacity", 1, 0...1, "mix over the image; 1 replaces it"),
      ]
    ) { a in noise(scale: a.number(0), seed: a.number(1), opacity: a.number(2)) },
  ]

  static let distortionEntries: [EffectSpec] = [
    EffectSpec(
      name: "wave", kind: .distortion, summary: "Shifts each column up and down along a sine wave.",
      parameters: [
        .number("amplitude", 10, 0...1000, unit: "px", "how far a column moves"),
        .number("wavelength", 60, 1...10000, unit: "px", "distance between crests"),
      ]
    ) { a in wave(amplitude: a.number(0), wavelength: a.number(1)) },
    EffectSpec(
      name: "swirl", kind: .distortion, summary: "Twists the image about its centre.",
      parameters: [
        .number("angle", 180, -1080...1080, unit: "°", "twist at the centre"),
        .number("radius", 0.8, 0...2, "reach, in half the shorter side"),
      ]
    ) { a in swirl(angle: a.number(0), radius: a.number(1)) },
    EffectSpec(
      name: "ripple", kind: .distortion, summary: "Concentric waves from the centre.",
      parameters: [
        .number("amplitude", 8, 0...200, unit: "px", "how far a pixel moves"),
        .number("wavelength", 40, 2...1000, unit: "px", "distance between crests"),
      ]
    ) { a in ripple(amplitude: a.number(0), wavelength: a.number(1)) },
    EffectSpec(
      name: "bulge", kind: .distortion, summary: "Magnifies (or, negative, pinches) the middle.",
      parameters: [
        .number("strength", 0.5, -1...1, "positive bulges, negative pinches"),
        .number("radius", 0.8, 0...2, "reach, in half the shorter side"),
      ]
    ) { a in bulge(strength: a.number(0), radius: a.number(1)) },
    EffectSpec(
      name: "kaleidoscope", kind: .distortion, summary: "Mirrors one wedge around the centre.",
      parameters: [
        .number("segments", 6, 2...32, "number of wedges (rounded)"),
        .angle("angle", 0, "orientation of the wedges"),
      ]
    ) { a in kaleidoscope(segments: a.number(0), angle: a.number(1)) },
  ]

  static let layerEntries: [EffectSpec] = [
    EffectSpec(
      name: "pixelate", kind: .layer, summary: "Fills square blocks with the color at their centre.",
      parameters: [
        .number("amount", 1, 0...1, "0 = unchanged, 1 = full block size"),
        .number("blockSize", 22, 1...1000, unit: "px", "block side at amount 1"),
      ],
      example: "pixelate(blockSize: 10)"
    ) { a in pixelate(amount: a.number(0), blockSize: a.number(1)) },
    EffectSpec(
      name: "gaussianBlur", kind: .layer, summary: "Gaussian blur; edges are clamped, so no dark border.",
      parameters: [
        .number("sigma", 3, 0...200, unit: "px", "standard deviation; 0 = unchanged"),
        .choice(
          "method", BlurMethod.allCases.map(\.rawValue), "auto",
          "exact: a loop over 2⌈3σ⌉+1 taps; recursive: Deriche's, a cost independent of σ; auto: recursive above σ 9"),
      ]
    ) { a in gaussianBlur(sigma: a.number(0), method: a.choice(1, as: BlurMethod.self)) },
    EffectSpec(
      name: "blur", kind: .layer, summary: "SwiftUI's .blur(radius:): a Gaussian blur with σ = radius; edges clamped.",
      parameters: [.number("radius", 10, 0...200, unit: "px", "standard deviation (Core Image's radius); 0 = unchanged")],
      example: "blur(radius: 30)"
    ) { a in blur(radius: a.number(0)) },
    EffectSpec(
      name: "boxBlur", kind: .layer, summary: "Mean of a square around each pixel; edges clamped.",
      parameters: [
        .number("radius", 2, 0...5000, unit: "px", "half the side, rounded; 0 = unchanged (a uniform: 0…200)"),
        .choice(
          "method", BlurMethod.allCases.map(\.rawValue), "auto",
          "exact: a loop over 2r+1 taps; recursive: running sums, a cost independent of r; auto: running sums from r 16 on"),
      ],
      example: "boxBlur(3)"
    ) { a in boxBlur(radius: a.number(0), method: a.choice(1, as: BlurMethod.self)) },
    EffectSpec(
      name: "motionBlur", kind: .layer, summary: "Mean of 24 samples along a line through each pixel.",
      parameters: [
        .number("distance", 20, 0...500, unit: "px", "length of the streak"),
        .angle("angle", 0, "direction of motion"),
      ]
    ) { a in motionBlur(distance: a.number(0), angle: a.number(1)) },
    EffectSpec(
      name: "progressiveBlur", kind: .layer, summary: "Blur whose radius falls off across the image.",
      parameters: [
        .number("radius", 16, 0...64, unit: "px", "standard deviation at full strength; 0 = off"),
        .number("length", 200, 0...10000, unit: "px", "distance over which the blur fades; 0 = off"),
        .choice("direction", Direction.allCases.map(\.rawValue), "topToBottom", "the edge the blur starts from"),
        .number("start", 0, 0...10000, unit: "px", "full-strength distance from that edge"),
        .choice("curve", Curve.allCases.map(\.rawValue), "linear", "shape of the fade"),
      ],
      example: "progressiveBlur(radius: 12, length: 120)"
    ) { a in
      progressiveBlur(
        radius: a.number(0), length: a.number(1), direction: a.choice(2, as: Direction.self), start: a.number(3),
        curve: a.choice(4, as: Curve.self))
    },
    EffectSpec(
      name: "unsharpMask", kind: .layer, summary: "Sharpens by adding back the difference from a Gaussian blur.",
      parameters: [
        .number("sigma", 2, 0...200, unit: "px", "standard deviation of the blur"),
        .number("amount", 1, 0...10, "strength; 0 = unchanged"),
      ],
      example: "unsharpMask(2, 2)"
    ) { a in unsharpMask(sigma: a.number(0), amount: a.number(1)) },
    EffectSpec(
      name: "sharpen", kind: .layer, summary: "Sharpens with the 4-neighbour Laplacian; edges clamped.",
      parameters: [.number("amount", 1, 0...10, "strength; 0 = unchanged")], example: "sharpen(2)"
    ) { a in sharpen(amount: a.number(0)) },
    EffectSpec(
      name: "edgeDetect", kind: .layer, summary: "Sobel gradient magnitude: bright edges on black.",
      parameters: [.number("strength", 1, 0...10, "gain of the edges")], example: "edgeDetect(2)"
    ) { a in edgeDetect(strength: a.number(0)) },
    EffectSpec(
      name: "sketch", kind: .layer, summary: "Pencil sketch: dark Sobel edges on white paper.",
      parameters: [.number("intensity", 1, 0...4, "darkness of the lines; 0 = blank paper")], example: "sketch(2)"
    ) { a in sketch(intensity: a.number(0)) },
    EffectSpec(
      name: "emboss", kind: .layer, summary: "Gray relief lit from one side.",
      parameters: [
        .number("strength", 2, 0...10, "height of the relief"),
        .angle("angle", 135, "direction of the light"),
      ]
    ) { a in emboss(strength: a.number(0), angle: a.number(1)) },
    EffectSpec(
      name: "halftone", kind: .layer, summary: "Black dots on white whose size follows the darkness.",
      parameters: [
        .number("dotSize", 8, 2...100, unit: "px", "grid spacing"),
        .angle("angle", 45, "grid orientation"),
      ],
      example: "halftone(5)"
    ) { a in halftone(dotSize: a.number(0), angle: a.number(1)) },
    EffectSpec(
      name: "crt", kind: .layer, summary: "CRT screen: curvature, scanlines, phosphor mask, dark corners.",
      parameters: [
        .number("curvature", 0.25, 0...1, "bulge of the screen"),
        .number("intensity", 0.5, 0...1, "strength of scanlines and mask"),
      ]
    ) { a in crt(curvature: a.number(0), intensity: a.number(1)) },
    EffectSpec(
      name: "chromaticAberration", kind: .layer, summary: "Red shifted outward and blue inward, growing to the corners.",
      parameters: [.number("amount", 6, 0...100, unit: "px", "shift at the corners")]
    ) { a in chromaticAberration(amount: a.number(0)) },
    EffectSpec(
      name: "domainWarp", kind: .layer, summary: "Resamples through a noise texture warped through itself.",
      parameters: [
        .number("strength", 200, 0...2000, unit: "px", "largest shift, twice over; 0 = unchanged"),
        ParameterSpec(
          name: "time", defaultValue: 0, range: 0...3600, unit: "s", summary: "drifts the noise; wraps every hour",
          period: 3600),
        .choice("noise", NoiseSource.allCases.map(\.rawValue), "generated", "the texture: generated, or the --to image"),
      ],
      example: "domainWarp(strength: 60)"
    ) { a in
      let source = a.choice(2, as: NoiseSource.self)
      return domainWarp(noise: source == .image ? Image.input(1) : nil, strength: a.number(0), time: a.number(1))
    },
  ]

  static let transitionEntries: [EffectSpec] = [
    EffectSpec(
      name: "dissolve", kind: .layer, summary: "Transition: burns away through noise with a glowing edge.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .number("grain", 44, 1...1000, unit: "px", "size of the noise cells"),
        .color("edge", .orange, "color of the glowing edge"),
      ],
      isTransition: true, example: "dissolve(grain: 20)"
    ) { a in dissolve(progress: a.number(0), grain: a.number(1), edge: a.color(2)) },
    EffectSpec(
      name: "fade", kind: .layer, summary: "Transition: cross-fade.",
      parameters: [.number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image")], isTransition: true
    ) { a in fade(progress: a.number(0)) },
    EffectSpec(
      name: "wipe", kind: .layer, summary: "Transition: a soft edge sweeps across the image.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .choice("direction", Direction.allCases.map(\.rawValue), "leadingToTrailing", "where the sweep starts"),
        .number("softness", 24, 0...1000, unit: "px", "width of the edge"),
      ],
      isTransition: true
    ) { a in wipe(progress: a.number(0), direction: a.choice(1, as: Direction.self), softness: a.number(2)) },
    EffectSpec(
      name: "slide", kind: .layer, summary: "Transition: the new image pushes the old one out.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .choice("direction", Direction.allCases.map(\.rawValue), "leadingToTrailing", "where the new image enters"),
      ],
      isTransition: true
    ) { a in slide(progress: a.number(0), direction: a.choice(1, as: Direction.self)) },
    EffectSpec(
      name: "iris", kind: .layer, summary: "Transition: a circle opens from the centre.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .number("softness", 8, 0...1000, unit: "px", "width of the edge"),
      ],
      isTransition: true
    ) { a in iris(progress: a.number(0), softness: a.number(1)) },
    EffectSpec(
      name: "pixelateTransition", kind: .layer, summary: "Transition: pixelates out, cross-fades, pixelates back in.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .number("blockSize", 40, 1...1000, unit: "px", "block side half way"),
      ],
      isTransition: true, example: "pixelateTransition(0.45, 16)"
    ) { a in pixelateTransition(progress: a.number(0), blockSize: a.number(1)) },
    EffectSpec(
      name: "swirlTransition", kind: .layer, summary: "Transition: twists up, cross-fades, untwists.",
      parameters: [
        .number("progress", 0.5, 0...1, "0 = the input, 1 = the --to image"),
        .number("angle", 540, -1080...1080, unit: "°", "twist at the centre half way"),
        .number("radius", 1.2, 0...2, "reach, in half the shorter side"),
      ],
      isTransition: true, example: "swirlTransition(0.4)"
    ) { a in swirlTransition(progress: a.number(0), angle: a.number(1), radius: a.number(2)) },
  ]
}
