/// The stub document camera (seed 000's `StubDocumentCameraView` on the Simulator): draws
/// a passport-style data page as a PNG, with no camera at all.
///
/// Sides (seed 001): `front` is the data page (540×380), `back` the observations page
/// (540×380), `single` both on one picture (540×760). The images are deterministic and
/// cached, so every capture of a side returns the same bytes.
public struct StubDocumentCamera: Sendable {
    /// Width of one page.
    public static let pageWidth = 540
    /// Height of one page.
    public static let pageHeight = 380

    /// Creates the stub camera.
    public init() {}

    /// A capture of `side` (`front`, `back` or `single`; anything else is `front`).
    public func capture(side: String = "front") -> DocumentCaptureResult {
        switch side {
        case "back": return Self.back
        case "single": return Self.single
        default: return Self.front
        }
    }

    static let front = render { c, y in drawFront(&c, top: y) }
    static let back = render { c, y in drawBack(&c, top: y) }
    static let single: DocumentCaptureResult = {
        var c = RGBCanvas(width: pageWidth, height: pageHeight * 2, fill: RGB(245, 245, 240))
        drawFront(&c, top: 0)
        drawBack(&c, top: pageHeight)
        return encode(c)
    }()

    private static func render(_ draw: (inout RGBCanvas, Int) -> Void) -> DocumentCaptureResult {
        var c = RGBCanvas(width: pageWidth, height: pageHeight, fill: RGB(245, 245, 240))
        draw(&c, 0)
        return encode(c)
    }

    private static func encode(_ c: RGBCanvas) -> DocumentCaptureResult {
        // The canvas size is fixed and valid, so encoding cannot fail short of zlib itself failing.
        let png = (try? PNGEncoder.encode(rgb: c.pixels, width: c.width, height: c.height)) ?? []
        return DocumentCaptureResult(imageData: png, width: c.width, height: c.height, mimeType: "image/png")
    }

    static func drawFront(_ c: inout RGBCanvas, top: Int) {
        let w = pageWidth, h = pageHeight
        let ink = RGB(30, 40, 60), label = RGB(90, 100, 120), navy = RGB(20, 45, 100)
        c.fillRect(x: 0, y: top, w: w, h: h, RGB(226, 238, 230))
        c.securityPattern(x: 0, y: top, w: w, h: h, RGB(206, 224, 214))
        c.fillRect(x: 0, y: top, w: w, h: 44, navy)
        c.text("PASSPORT", x: 16, y: top + 12, scale: 3, RGB(255, 255, 255))
        c.text("BRIDGESCOPE STUB", x: w - RGBCanvas.textWidth("BRIDGESCOPE STUB", scale: 2) - 16, y: top + 16, scale: 2,
               RGB(200, 215, 240))
        // Photo with a face silhouette.
        c.fillRect(x: 20, y: top + 60, w: 130, h: 165, RGB(200, 205, 212))
        c.fillEllipse(cx: 85, cy: top + 215, rx: 58, ry: 38, RGB(120, 128, 140), maxY: top + 224)
        c.fillEllipse(cx: 85, cy: top + 125, rx: 32, ry: 40, RGB(120, 128, 140))
        c.fillRect(x: 20, y: top + 225, w: 130, h: 2, ink)
        // Fields.
        let fields: [(String, String)] = [("SURNAME", "SPECIMEN"), ("GIVEN NAMES", "BRIDGE SCOPE"), ("NATIONALITY", "UTO"),
                                          ("DATE OF BIRTH", "01 JAN 1990"), ("DOCUMENT NO", "X0000000")]
        for (i, (name, value)) in fields.enumerated() {
            let y = top + 60 + i * 33
            c.text(name, x: 170, y: y, scale: 1, label)
            c.text(value, x: 170, y: y + 11, scale: 2, ink)
        }
        c.text("SPECIMEN", x: 330, y: top + 200, scale: 4, RGB(200, 40, 40))
        // Machine-readable zone: two lines of 44 characters.
        c.fillRect(x: 0, y: top + h - 86, w: w, h: 86, RGB(250, 250, 248))
        let line1 = String("P<UTOSPECIMEN<<BRIDGE<SCOPE".padding(toLength: 44, withPad: "<", startingAt: 0))
        let line2 = "X0000000<0UTO9001014M3001014<<<<<<<<<<<<<<06"
        c.text(line1, x: 7, y: top + h - 70, scale: 2, ink)
        c.text(line2, x: 7, y: top + h - 38, scale: 2, ink)
    }

    static func drawBack(_ c: inout RGBCanvas, top: Int) {
        let w = pageWidth, h = pageHeight
        let ink = RGB(30, 40, 60)
        c.fillRect(x: 0, y: top, w: w, h: h, RGB(236, 232, 222))
        c.securityPattern(x: 0, y: top, w: w, h: h, RGB(222, 216, 200))
        c.text("OBSERVATIONS", x: 20, y: top + 20, scale: 3, ink)
        for i in 0..<6 {
            c.fillRect(x: 20, y: top + 70 + i * 28, w: w - 40, h: 1, RGB(150, 150, 150))
        }
        c.text("NO OFFICIAL ENDORSEMENTS", x: 24, y: top + 78, scale: 2, RGB(90, 90, 110))
        // A barcode-like strip.
        var x = 40
        var n: UInt32 = 0x9E37_79B9
        while x < w - 40 {
            n = n &* 1_664_525 &+ 1_013_904_223
            let bar = 1 + Int(n >> 30)
            c.fillRect(x: x, y: top + h - 110, w: bar, h: 70, ink)
            x += bar + 1 + Int((n >> 28) & 3)
        }
        c.text("BACK", x: w - 100, y: top + h - 30, scale: 2, RGB(120, 110, 100))
    }
}
