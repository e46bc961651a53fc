/// Text meant for a terminal, made safe as `git` and `less` make it: control characters
/// read from a session (ESC, BEL, CR, the C1 range...) can never reach the terminal raw,
/// and one enormous value cannot flood it.
///
/// Renderers build their text with colour written as ``colourMark(_:)`` placeholders,
/// pass the whole text through ``render(_:colour:)``, and only then do the marks become
/// ANSI sequences: whatever a value interpolated into the text holds, the only escape
/// sequences in the output are colour changes (a session holding the placeholder
/// scalars themselves, U+F0000-U+F00FF, can recolour text, nothing more).
public enum TerminalText {
    /// The placeholder for the SGR parameter `code` (`31` red, `0` reset...): a
    /// private-use scalar no session text can hold after ``render(_:colour:)`` escapes
    /// its own private-use scalars.
    public static func colourMark(_ code: Int) -> String {
        String(UnicodeScalar(0xF0000 + UInt32(code))!)
    }

    /// `text` with every control character but LF and tab shown as `\e`, `\a`, `\r`,
    /// `\u{...}`, private-use marks turned into ANSI colour (or dropped when `colour` is
    /// false), and any line longer than `maxLineLength` characters cut, saying how much.
    public static func render(_ text: String, colour: Bool, maxLineLength: Int = 4096) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var lineLength = 0, cut = 0
        for u in text.unicodeScalars {
            if u == "\n" {
                if cut > 0 { out += " … (\(cut) more characters)"; cut = 0 }
                out.unicodeScalars.append(u)
                lineLength = 0
                continue
            }
            if (0xF0000...0xF00FF).contains(u.value) {
                if colour { out += "\u{1B}[\(u.value - 0xF0000)m" }
                continue
            }
            if lineLength >= maxLineLength { cut += 1; continue }
            lineLength += 1
            switch u.value {
            case 0x09: out.unicodeScalars.append(u)
            case 0x1B: out += "\\e"
            case 0x07: out += "\\a"
            case 0x0D: out += "\\r"
            case 0x08: out += "\\b"
            case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        if cut > 0 { out += " … (\(cut) more characters)" }
        return out
    }
}
