public import ShelfStore

/// How to read and write an import.
public struct ImportOptions: Sendable {
    /// The input's format; nil takes it from the file's extension, else from its first bytes.
    public var format: TransferFormat?
    /// What to do with rows that already exist.
    public var mode: ImportMode
    /// Write the valid rows and refuse the others, instead of refusing the whole input at the
    /// first bad row.
    public var skipInvalid: Bool
    /// Where refused rows go, with their reason, when `skipInvalid` is set: CSV input gives a
    /// CSV of its own columns plus `error`; JSON input gives NDJSON objects with an `error` key.
    public var rejectsPath: String?
    /// Read and check everything, report every problem, and write nothing.
    public var dryRun: Bool
    /// Fields read from a differently named column: field name → column name.
    public var columnMap: [String: String]
    /// Ignore columns that are no field, instead of refusing the input.
    public var ignoreUnknownColumns: Bool
    /// For items: the email of the user who owns rows without an owner.
    public var defaultOwner: String?
    /// The input's text encoding; nil reads UTF-8, or UTF-16 when a byte order mark or the
    /// first characters show it (see `TextEncoding`).
    public var encoding: TextEncoding?
    /// The byte between CSV fields; nil takes the format's (a comma, a tab for TSV). One
    /// given makes the input CSV (TSV for a tab) unless the format says JSON, which is refused.
    public var delimiter: Delimiter?
    /// Called on the import's thread, after the input is read and before anything is written,
    /// when a `replace` would delete items (of items: the items the input lacks, whoever owns
    /// them; of users: the items of the users the input lacks; not in a dry run): throwing
    /// refuses the import (nothing is written). Nil allows it. The import then fails, writing
    /// nothing, if by the time it is applied more items would go than were shown here.
    public var confirmDeletions: (@Sendable (ReplaceDeletions) throws -> Void)?

    /// Options; by default insert every row, atomically, with the input's own column names.
    public init(
        format: TransferFormat? = nil, mode: ImportMode = .insert, skipInvalid: Bool = false,
        rejectsPath: String? = nil, dryRun: Bool = false, columnMap: [String: String] = [:],
        ignoreUnknownColumns: Bool = false, defaultOwner: String? = nil, encoding: TextEncoding? = nil,
        delimiter: Delimiter? = nil
    ) {
        self.format = format
        self.mode = mode
        self.skipInvalid = skipInvalid
        self.rejectsPath = rejectsPath
        self.dryRun = dryRun
        self.columnMap = columnMap
        self.ignoreUnknownColumns = ignoreUnknownColumns
        self.defaultOwner = defaultOwner
        self.encoding = encoding
        self.delimiter = delimiter
    }
}
