/// A colour: 8-bit red, green, blue.
struct RGB: Sendable, Hashable {
    var r: UInt8, g: UInt8, b: UInt8
    init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
}

/// A small raster the stub cameras draw on: packed 8-bit RGB, row-major, top row first
/// (the layout both PNG colour type 2 and TurboJPEG's `TJPF_RGB` take).
struct RGBCanvas: Sendable {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, fill: RGB) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fillRect(x: 0, y: 0, w: width, h: height, fill)
    }

    mutating func set(_ x: Int, _ y: Int, _ c: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = c.r
        pixels[i + 1] = c.g
        pixels[i + 2] = c.b
    }

    mutating func fillRect(x: Int, y: Int, w: Int, h: Int, _ c: RGB) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        pixels.withUnsafeMutableBufferPointer { p in
            for yy in y0..<y1 {
                var i = (yy * width + x0) * 3
                for _ in x0..<x1 {
                    p[i] = c.r; p[i + 1] = c.g; p[i + 2] = c.b
                    i += 3
                }
            }
        }
    }

    /// A filled ellipse centred at (cx, cy) with radii rx, ry, clipped to rows ≤ `maxY`.
    mutating func fillEllipse(cx: Int, cy: Int, rx: Int, ry: Int, _ c: RGB, maxY: Int = .max) {
        let y0 = max(0, cy - ry), y1 = min(height - 1, cy + ry, maxY)
        guard rx > 0, ry > 0, y0 <= y1 else { return }
        for yy in y0...y1 {
            let dy = Double(yy - cy) / Double(ry)
            let half = Int((Double(rx) * (1 - dy * dy).squareRoot()).rounded())
            fillRect(x: cx - half, y: yy, w: 2 * half + 1, h: 1, c)
        }
    }

    /// A vertical gradient over the whole canvas.
    mutating func verticalGradient(top: RGB, bottom: RGB) {
        for yy in 0..<height {
            let t = Double(yy) / Double(max(1, height - 1))
            func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * (1 - t) + Double(b) * t).rounded()) }
            fillRect(x: 0, y: yy, w: width, h: 1, RGB(mix(top.r, bottom.r), mix(top.g, bottom.g), mix(top.b, bottom.b)))
        }
    }

    /// Fine diagonal security lines, like a banknote's guilloche (cheap version).
    mutating func securityPattern(x: Int, y: Int, w: Int, h: Int, _ c: RGB) {
        for yy in max(0, y)..<min(height, y + h) {
            for xx in max(0, x)..<min(width, x + w) where (xx + 2 * yy) % 13 == 0 || (3 * xx - yy + 1000) % 29 == 0 {
                set(xx, yy, c)
            }
        }
    }

    /// Writes `text` in the 5×7 bitmap font, each font pixel `scale`×`scale`, with one
    /// font pixel between characters. Characters without a glyph are left blank.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ c: RGB) {
        var cx = x
        for ch in text.uppercased() {
            if let rows = BitmapFont.glyphs[ch] {
                for (row, bits) in rows.enumerated() {
                    for col in 0..<5 where bits & (0x10 >> UInt8(col)) != 0 {
                        fillRect(x: cx + col * scale, y: y + row * scale, w: scale, h: scale, c)
                    }
                }
            }
            cx += 6 * scale
        }
    }

    /// Width in pixels of `text` at `scale`.
    static func textWidth(_ text: String, scale: Int) -> Int { text.count * 6 * scale - scale }
}

/// A 5×7 bitmap font: A–Z, 0–9 and `<`, `-`, `.`, `/`, space. Seven rows of five bits,
/// the high bit (0x10) leftmost.
enum BitmapFont {
    static let glyphs: [Character: [UInt8]] = [
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "<": [0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02], "-": [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C], "/": [0x01, 0x02, 0x02, 0x04, 0x08, 0x08, 0x10],
        " ": [0, 0, 0, 0, 0, 0, 0],
    ]
}
