internal import Foundation
public import ShelfStore
internal import Synchronization

/// Where an export writes.
public enum ExportDestination: Sendable {
    /// Standard output.
    case standardOutput
    /// A file, written beside its path and renamed into place when complete, so a failed
    /// export leaves an existing file as it was; the replaced file's permission bits are kept.
    /// A device, FIFO or `/dev/stdout` is written in place. The store's database (and its
    /// `-wal`, `-shm`, `-journal`) and any SQLite file are refused with a `TransferError`.
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
/// task. Cancelling the calling task stops the export within a row: it throws
/// `CancellationError` and a file destination is left as it was. Errors are `TransferError`
/// (writing, or a destination refused because writing it would destroy data), `StoreError`
/// (reading) or `CancellationError`.
public struct Exporter: Sendable {
    private let store: Store

    /// An exporter reading `store`.
    public init(store: Store) {
        self.store = store
    }

    /// Writes every user; returns how many.
    @discardableResult
    public func exportUsers(format: TransferFormat, to destination: ExportDestination) async throws -> Int {
        try await Self.offThread { [store] cancellation in
            let output = try Self.open(destination, store: store)
            output.isCancelled = { cancellation.isCancelled }
            var writer = RowWriter(format: format, output: output)
            try writer.begin(header: "id,name,email,created_at")
            try store.forEachUser { user in
                try cancellation.check()
                try writer.row { fields in
                    fields.integer("id", user.id)
                    fields.text("name", user.name)
                    fields.text("email", user.email)
                    fields.time("created_at", user.createdAt)
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
        try await Self.offThread { [store] cancellation in
            let output = try Self.open(destination, store: store)
            output.isCancelled = { cancellation.isCancelled }
            var writer = RowWriter(format: format, output: output)
            try writer.begin(header: "id,user,title,notes,status,priority,created_at,updated_at")
            try store.forEachItem(matching: query) { item in
                try cancellation.check()
                try writer.row { fields in
                    fields.integer("id", item.id)
                    fields.text("user", item.ownerEmail)
                    fields.text("title", item.title)
                    fields.text("notes", item.notes)
                    fields.text("status", item.status)
                    fields.integer("priority", Int64(item.priority))
                    fields.time("created_at", item.createdAt)
                    fields.time("updated_at", item.updatedAt)
                }
            }
            return try writer.end()
        }
    }

    /// Opens the destination, refusing the store's own files.
    private static func open(_ destination: ExportDestination, store: Store) throws(TransferError) -> ByteOutput {
        let protecting = store.path.map { [$0] } ?? []
        switch destination {
        case .standardOutput: return try ByteOutput(descriptor: 1, name: "stdout", protecting: protecting)
        case .file(let path): return try ByteOutput(path: path, protecting: protecting)
        }
    }

    /// Runs a long blocking job on a thread of its own; cancelling the calling task sets the
    /// flag `body` checks.
    static func offThread<T: Sendable>(_ body: @escaping @Sendable (Cancellation) throws -> T) async throws -> T {
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            do {
                                return try body(cancellation)
                            } catch  where cancellation.isCancelled {
                                // A write stopped by the cancellation reports it as such.
                                throw CancellationError()
                            }
                        })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// A task's cancellation, seen from a thread that is not the task's.
final class Cancellation: Sendable {
    private let cancelled = Atomic(false)

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws `CancellationError` once `cancel()` was called.
    @inline(__always)
    func check() throws(CancellationError) {
        if cancelled.load(ordering: .relaxed) { throw CancellationError() }
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

    /// Writes one row, whose fields `body` appends in column order.
    @inline(__always)
    mutating func row(_ body: (inout RowFields) -> Void) throws(TransferError) {
        if format == .json { Encode.ascii(count == 0 ? "\n" : ",\n", into: &output.bytes) }
        var fields = RowFields(json: format != .csv)
        // The buffer moves into the row and back: one exclusive access per row, not per field.
        swap(&fields.bytes, &output.bytes)
        body(&fields)
        fields.close()
        swap(&fields.bytes, &output.bytes)
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

/// The fields of one row, appended in column order: `1,Ann,…` for CSV, or
/// `{"id":1,"name":"Ann",…}` for JSON and NDJSON. One list of calls serves every format, so
/// the columns cannot drift apart between them.
struct RowFields {
    let json: Bool
    var bytes: [UInt8] = []
    private var first = true

    init(json: Bool) {
        self.json = json
    }

    @inline(__always)
    mutating func integer(_ name: StaticString, _ value: Int64) {
        separate(name)
        Encode.integer(value, into: &bytes)
    }

    /// Text, or no value: an empty CSV field or JSON `null`.
    @inline(__always)
    mutating func text(_ name: StaticString, _ value: String?) {
        separate(name)
        if json { Encode.json(value, into: &bytes) } else { Encode.csv(value, into: &bytes) }
    }

    /// Milliseconds since 1970 as UTC ISO 8601.
    @inline(__always)
    mutating func time(_ name: StaticString, _ milliseconds: Int64) {
        separate(name)
        if json { bytes.append(0x22) }
        Timestamp.format(milliseconds, into: &bytes)
        if json { bytes.append(0x22) }
    }

    /// Ends a JSON object.
    mutating func close() {
        guard json else { return }
        if first { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
    }

    @inline(__always)
    private mutating func separate(_ name: StaticString) {
        if json {
            bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            bytes.append(0x22)
            Encode.ascii(name, into: &bytes)
            Encode.ascii("\":", into: &bytes)
        } else if !first {
            bytes.append(0x2C)
        }
        first = false
    }
}
