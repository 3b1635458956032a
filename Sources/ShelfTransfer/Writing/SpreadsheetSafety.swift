/// `ExportOptions.excelSafe`: which text a spreadsheet would take for a formula.
enum SpreadsheetSafety {
    /// True when `text` starts with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's list
    /// for CSV injection): it is then written with a `'` in front.
    @inline(__always)
    static func needsPrefix(_ text: String) -> Bool {
        switch text.utf8.first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
        default: false
        }
    }
}
