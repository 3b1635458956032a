internal import Foundation
public import ShelfStore

/// Where an export writes.
public enum ExportDestination: Sendable {
    /// Standard output.
    case standardOutput
    /// A file, written beside its path and renamed into place when complete, so a failed
    /// export leaves an existing file as it was.
    case file(String)
}

/// Writes a store's users or items as CSV, JSON or NDJSON, streaming: memory stays flat
/// whatever the number of rows.
///
/// Rows come by ID from one snapshot of the store, so an export is consistent while writes
/// go on, and exporting the same data twice gives the same bytes. Columns are those an
/// import reads: users `id, name, email, created_at`; items `id, user, title, notes,
/// status, priority, created_at, updated_at`, with the owner by email and times in UTC
/// ISO 8601 with milliseconds. Missing notes are an empty CSV field or JSON `null`; empty
/// notes are `""`.
///
/// The methods may be called from any task; each runs on a thread of its own and blocks no
/// task. Errors are `TransferError` (writing) or `StoreError` (reading).
public struct Exporter: Sendable {
    private let store: Store

    /// An exporter reading `store`.
    public init(store: Store) {
        self.store = store
    }

    /// Writes every user; returns how many.
    @discardableResult
    public func exportUsers(format: TransferFormat, to destination: ExportDestination) async throws -> Int {
        try await Self.offThread { [store] in
            let output = try Self.open(destination)
            var writer = RowWriter(format: format, output: output)
            try writer.begin(header: "id,name,email,created_at")
            try store.forEachUser { user in
                try writer.row { bytes, format in
                    if format == .csv {
                        Encode.integer(user.id, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(user.name, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(user.email, into: &bytes)
                        bytes.append(0x2C)
                        Timestamp.format(user.createdAt, into: &bytes)
                    } else {
                        Encode.ascii("{\"id\":", into: &bytes)
                        Encode.integer(user.id, into: &bytes)
                        Encode.ascii(",\"name\":", into: &bytes)
                        Encode.json(user.name, into: &bytes)
                        Encode.ascii(",\"email\":", into: &bytes)
                        Encode.json(user.email, into: &bytes)
                        Encode.ascii(",\"created_at\":\"", into: &bytes)
                        Timestamp.format(user.createdAt, into: &bytes)
                        Encode.ascii("\"}", into: &bytes)
                    }
                }
            }
            return try writer.end()
        }
    }

    /// Writes the items `query` selects by owner, status and text (its sort order is ignored:
    /// items come by ID); returns how many.
    @discardableResult
    public func exportItems(
        matching query: ItemQuery = ItemQuery(), format: TransferFormat, to destination: ExportDestination
    ) async throws -> Int {
        try await Self.offThread { [store] in
            let output = try Self.open(destination)
            var writer = RowWriter(format: format, output: output)
            try writer.begin(header: "id,user,title,notes,status,priority,created_at,updated_at")
            try store.forEachItem(matching: query) { item in
                try writer.row { bytes, format in
                    if format == .csv {
                        Encode.integer(item.id, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(item.ownerEmail, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(item.title, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(item.notes, into: &bytes)
                        bytes.append(0x2C)
                        Encode.csv(item.status, into: &bytes)
                        bytes.append(0x2C)
                        Encode.integer(Int64(item.priority), into: &bytes)
                        bytes.append(0x2C)
                        Timestamp.format(item.createdAt, into: &bytes)
                        bytes.append(0x2C)
                        Timestamp.format(item.updatedAt, into: &bytes)
                    } else {
                        Encode.ascii("{\"id\":", into: &bytes)
                        Encode.integer(item.id, into: &bytes)
                        Encode.ascii(",\"user\":", into: &bytes)
                        Encode.json(item.ownerEmail, into: &bytes)
                        Encode.ascii(",\"title\":", into: &bytes)
                        Encode.json(item.title, into: &bytes)
                        Encode.ascii(",\"notes\":", into: &bytes)
                        Encode.json(item.notes, into: &bytes)
                        Encode.ascii(",\"status\":", into: &bytes)
                        Encode.json(item.status, into: &bytes)
                        Encode.ascii(",\"priority\":", into: &bytes)
                        Encode.integer(Int64(item.priority), into: &bytes)
                        Encode.ascii(",\"created_at\":\"", into: &bytes)
                        Timestamp.format(item.createdAt, into: &bytes)
                        Encode.ascii("\",\"updated_at\":\"", into: &bytes)
                        Timestamp.format(item.updatedAt, into: &bytes)
                        Encode.ascii("\"}", into: &bytes)
                    }
                }
            }
            return try writer.end()
        }
    }

    private static func open(_ destination: ExportDestination) throws(TransferError) -> ByteOutput {
        switch destination {
        case .standardOutput: ByteOutput(descriptor: 1, name: "stdout")
        case .file(let path): try ByteOutput(path: path)
        }
    }

    /// Runs a long blocking job on a thread of its own.
    static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Frames rows for a format: the CSV header and CRLF line ends, the JSON array's brackets
/// and commas, or NDJSON's newlines.
struct RowWriter {
    let format: TransferFormat
    let output: ByteOutput
    private(set) var count = 0

    init(format: TransferFormat, output: ByteOutput) {
        self.format = format
        self.output = output
    }

    func begin(header: StaticString) throws(TransferError) {
        switch format {
        case .csv:
            Encode.ascii(header, into: &output.bytes)
            Encode.ascii("\r\n", into: &output.bytes)
        case .json: output.bytes.append(UInt8(ascii: "["))
        case .ndjson: break
        }
    }

    /// Writes one row, whose fields `body` appends.
    @inline(__always)
    mutating func row(_ body: (inout [UInt8], TransferFormat) -> Void) throws(TransferError) {
        if format == .json { Encode.ascii(count == 0 ? "\n" : ",\n", into: &output.bytes) }
        body(&output.bytes, format)
        switch format {
        case .csv: Encode.ascii("\r\n", into: &output.bytes)
        case .ndjson: output.bytes.append(0x0A)
        case .json: break
        }
        count += 1
        try output.flushIfFull()
    }

    /// Closes the array, flushes and commits; returns the number of rows.
    func end() throws(TransferError) -> Int {
        if format == .json { Encode.ascii(count == 0 ? "]\n" : "\n]\n", into: &output.bytes) }
        try output.commit()
        return count
    }
}
