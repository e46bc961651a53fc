/// Escaping for XML and HTML text and attribute values. Characters XML 1.0 cannot hold
/// (C0 controls other than tab, LF, CR; U+FFFE, U+FFFF; C1 controls) become U+FFFD, so
/// text read from the wire can never break a document.
public enum XMLText {
    /// `s` escaped for use in element content and in double- or single-quoted attributes.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF || (0x7F...0x9F).contains(u.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }
}
