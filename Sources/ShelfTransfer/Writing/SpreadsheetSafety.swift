/// `ExportOptions.excelSafe`: which text a spreadsheet would take for a formula.
enum SpreadsheetSafety {
    /// True when `text` starts with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's list
    /// for CSV injection): it is then written with a `'` in front.
    @inline(__always)
    static func needsPrefix(_ text: String) -> Bool {
        startsFormula(text.utf8.first)
    }

    /// `needsPrefix(_:)` for UTF-8 bytes.
    @inline(__always)
    static func needsPrefix(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        startsFormula(utf8.first)
    }

    @inline(__always)
    private static func startsFormula(_ first: UInt8?) -> Bool {
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
        default: false
        }
    }
}
