public import ShelfStore

/// What to import from.
public enum ImportSource: Sendable {
    /// A file, named in errors by this path.
    case file(String)
    /// Standard input, named "stdin" in errors.
    case standardInput
}

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

    /// Options; by default insert every row, atomically, with the input's own column names.
    public init(
        format: TransferFormat? = nil, mode: ImportMode = .insert, skipInvalid: Bool = false,
        rejectsPath: String? = nil, dryRun: Bool = false, columnMap: [String: String] = [:],
        ignoreUnknownColumns: Bool = false, defaultOwner: String? = nil
    ) {
        self.format = format
        self.mode = mode
        self.skipInvalid = skipInvalid
        self.rejectsPath = rejectsPath
        self.dryRun = dryRun
        self.columnMap = columnMap
        self.ignoreUnknownColumns = ignoreUnknownColumns
        self.defaultOwner = defaultOwner
    }
}

/// How far an import has read.
public struct ImportProgress: Sendable {
    /// Records read so far.
    public var rows: Int
    /// Bytes of the input read so far.
    public var bytesRead: Int
    /// The input's size, when it is a regular file.
    public var totalBytes: Int?
    /// True once the whole input is read and checked and the rows are being written, in one
    /// transaction that other writers wait for (about 10 s for 1,000,000 items); reported once
    /// when that begins.
    public var isWriting = false
}

/// What an import did.
public struct ImportSummary: Sendable {
    /// The input's format, as given or detected.
    public var format: TransferFormat
    /// Records read.
    public var rows = 0
    /// Rows added.
    public var inserted = 0
    /// Existing rows changed (upsert and replace).
    public var updated = 0
    /// Existing rows the input matched exactly (upsert and replace).
    public var unchanged = 0
    /// Rows deleted because the input lacked them (replace).
    public var deleted = 0
    /// Rows refused (`skipInvalid` or `dryRun`).
    public var skipped = 0
    /// Why rows were refused, in input order; at most `problemLimit` are kept.
    public var problems: [TransferError] = []
    /// True when nothing was written (`dryRun`).
    public var dryRun = false
    /// From opening the input to the commit.
    public var duration: Duration = .zero

    /// How many problems a summary keeps; `skipped` counts them all.
    public static let problemLimit = 1000
}

/// The fields of users and items, with the column names an import reads by default.
enum Field: Int, CaseIterable {
    case id, user, userID, title, notes, status, priority, createdAt, updatedAt, name, email

    var name: String {
        switch self {
        case .id: "id"
        case .user: "user"
        case .userID: "user_id"
        case .title: "title"
        case .notes: "notes"
        case .status: "status"
        case .priority: "priority"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .name: "name"
        case .email: "email"
        }
    }

    static func fields(of table: ImportTable) -> [Field] {
        switch table {
        case .users: [.id, .name, .email, .createdAt]
        case .items: [.id, .user, .userID, .title, .notes, .status, .priority, .createdAt, .updatedAt]
        }
    }
}

/// Which column holds each field, given the input's columns and the options.
struct ColumnPlan {
    private var columnOfField: [Int?] = Array(repeating: nil, count: Field.allCases.count)
    /// Columns no field reads.
    private(set) var unknownColumns: [Int] = []
    /// How many columns the plan was made for (JSON inputs grow).
    private(set) var columnCount = 0

    subscript(field: Field) -> Int? { columnOfField[field.rawValue] }

    /// Plans `columns`. A field reads the column `columnMap` names for it, else the column
    /// of its own name (letter case ignored when no column matches exactly).
    init(table: ImportTable, columns: Columns, columnMap: [String: String]) {
        columnCount = columns.count
        var used = Set<Int>()
        for field in Field.fields(of: table) {
            let name = columnMap[field.name] ?? field.name
            let index =
                columns.index(of: name)
                ?? columns.names.firstIndex { $0.lowercased() == name.lowercased() }
            columnOfField[field.rawValue] = index
            if let index { used.insert(index) }
        }
        unknownColumns = (0..<columns.count).filter { !used.contains($0) }
    }

    /// Checks `--map` names fields of `table`.
    static func validate(columnMap: [String: String], table: ImportTable) throws(TransferError) {
        let names = Field.fields(of: table).map(\.name)
        for field in columnMap.keys.sorted() where !names.contains(field) {
            throw TransferError(
                "--map \(field)=…: \(table.rawValue) have no field '\(field)'; "
                    + "the fields are \(names.joined(separator: ", "))")
        }
    }
}
