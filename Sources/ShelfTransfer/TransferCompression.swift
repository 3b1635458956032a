/// The compression of an import's input or an export's output.
///
/// Imports recognize gzip by itself (its magic bytes, whatever the name); exports compress
/// when `ExportOptions.compression` says so.
public enum TransferCompression: String, Sendable, CaseIterable {
    /// Plain text.
    case none
    /// gzip (RFC 1952), written deterministically: no file name, modification time 0,
    /// compression level 6, so the same rows give the same bytes.
    case gzip

    /// The compression a file name's extension names: `.gz` (any case) is gzip, anything
    /// else none.
    public init(fileName: String) {
        self = fileName.lowercased().hasSuffix(".gz") ? .gzip : .none
    }

    /// `fileName` without a compression extension (`items.csv.gz` gives `items.csv`), for
    /// the format the name names.
    static func innerName(_ fileName: String) -> String {
        TransferCompression(fileName: fileName) == .gzip ? String(fileName.dropLast(3)) : fileName
    }
}
