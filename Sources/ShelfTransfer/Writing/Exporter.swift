internal import Foundation
internal import ShelfReactive
public import ShelfStore
internal import Synchronization

/// Writes a store's users or items as CSV, JSON or NDJSON, optionally gzip-compressed
/// (`ExportOptions`), streaming: memory stays flat whatever the number of rows.
///
/// Rows come by ID from one snapshot of the store, so an export is consistent while writes
/// go on, and exporting the same data twice gives the same bytes. Columns are those an
/// import reads: users `id, name, email, created_at`; items `id, user, title, notes,
/// status, priority, created_at, updated_at` (`ExportOptions.columns` chooses and orders
/// them), with the owner by email and times in UTC ISO 8601 with milliseconds. Missing notes are an empty CSV field or JSON `null`; empty
/// notes are `""`.
///
/// The methods may be called from any task; each runs on a thread of its own and blocks no
/// task (an items export reads on a second thread, a few pages ahead of its writing, and
/// waits for it to end before it returns). Cancelling the calling task stops the export within a row: it throws
/// `CancellationError` and a file destination is left as it was. Errors are `TransferError`
/// (writing, or a destination refused because writing it would destroy data), `StoreError`
/// (reading) or `CancellationError`.
public struct Exporter: Sendable {
    private let store: Store

    /// An exporter reading `store`.
    public init(store: Store) {
        self.store = store
    }

    /// Writes every user in `format`; returns how many.
    @discardableResult
    public func exportUsers(format: TransferFormat, to destination: ExportDestination) async throws -> Int {
        try await exportUsers(to: destination, options: ExportOptions(format: format))
    }

    /// Writes every user as `options` say (its format, columns and spreadsheet safety);
    /// returns how many. `progress`, when given, is called from the export's thread every few
    /// thousand rows and once at the end, with the rows written and the users counted first
    /// (one lookup on SQLite). `delivery`, when given, is told what the destination accepted
    /// as it goes (`ExportDelivery`): what an export that stops has handed to a reader.
    /// - Throws: `TransferError` for options that do not go together or name no column of
    ///   users (before anything is written), as well as the errors above.
    @discardableResult
    public func exportUsers(
        to destination: ExportDestination, options: ExportOptions,
        progress: (@Sendable (ExportProgress) -> Void)? = nil, delivery: ExportDelivery? = nil
    ) async throws -> Int {
        try options.check()
        let delimiter = try options.checkedDelimiter()
        let columns = UserColumn.plan(try options.selectedColumns(among: ExportOptions.userColumns))
        let total = progress == nil ? nil : try await store.exportUserCount()
        return try await Self.offThread { [store] cancellation in
            let output = try Self.open(destination, store: store, options: options, wake: cancellation.wake)
            if let delivery { output.track(delivery) }
            output.isCancelled = { cancellation.isCancelled }
            var writer = RowWriter(format: options.format, output: output, delimiter: delimiter)
            writer.excelSafe = options.excelSafe
            try writer.begin(columns: columns.map(\.key))
            var reporter = ProgressReporter(total: total, report: progress)
            try store.forEachUser { user in
                try cancellation.check()
                try writer.row("user \(user.id)") { fields in
                    for column in columns { column.write(user, into: &fields) }
                }
                reporter.advance(to: writer.count)
            }
            reporter.finish(at: writer.count)
            return try writer.end()
        }
    }

    /// Writes the items `query` selects by owner, status and text (its sort order is ignored:
    /// items come by ID) in `format`; returns how many.
    @discardableResult
    public func exportItems(
        matching query: ItemQuery = ItemQuery(), format: TransferFormat, to destination: ExportDestination
    ) async throws -> Int {
        try await exportItems(matching: query, to: destination, options: ExportOptions(format: format))
    }

    /// Writes the items `query` selects (as `exportItems(matching:format:to:)`) as `options`
    /// say (its format, columns and spreadsheet safety); returns how many. `progress`, when
    /// given, is called as by `exportUsers(to:options:progress:)`, with the items `query`
    /// selects counted first (`ItemRepository.count(matching:)`: one lookup when it filters
    /// nothing). `delivery`, when given, is told what the destination accepted, as by
    /// `exportUsers(to:options:progress:delivery:)`.
    /// - Throws: `TransferError` for options that do not go together or name no column of
    ///   items (before anything is written), as well as the errors above.
    @discardableResult
    public func exportItems(
        matching query: ItemQuery = ItemQuery(), to destination: ExportDestination, options: ExportOptions,
        progress: (@Sendable (ExportProgress) -> Void)? = nil, delivery: ExportDelivery? = nil
    ) async throws -> Int {
        try options.check()
        let delimiter = try options.checkedDelimiter()
        let columns = ItemColumn.plan(try options.selectedColumns(among: ExportOptions.itemColumns))
        let total = progress == nil ? nil : try await store.exportItemCount(matching: query)
        return try await Self.offThread { [store] cancellation in
            let output = try Self.open(destination, store: store, options: options, wake: cancellation.wake)
            if let delivery { output.track(delivery) }
            output.isCancelled = { cancellation.isCancelled }
            var writer = RowWriter(format: options.format, output: output, delimiter: delimiter)
            writer.excelSafe = options.excelSafe
            try writer.begin(columns: columns.map(\.key))
            var reporter = ProgressReporter(total: total, report: progress)
            // Read on a thread of its own, a few pages ahead of this one's writing.
            try ReadAhead.forEachItemText(store: store, matching: query, cancellation: cancellation) { item in
                try cancellation.check()
                try writer.row("item \(item.id)") { fields in
                    for column in columns { column.write(item, into: &fields) }
                }
                reporter.advance(to: writer.count)
            }
            reporter.finish(at: writer.count)
            return try writer.end()
        }
    }

    /// Opens the destination, refusing the store's own files (and a terminal for compressed
    /// output).
    private static func open(
        _ destination: ExportDestination, store: Store, options: ExportOptions, wake: InputWake?
    ) throws(TransferError) -> ByteOutput {
        let protecting = store.path.map { [$0] } ?? []
        let output: ByteOutput
        switch destination {
        case .standardOutput: output = try ByteOutput(descriptor: 1, name: "stdout", protecting: protecting)
        case .file(let path): output = try ByteOutput(path: path, protecting: protecting, wake: wake)
        }
        if options.compression == .gzip { try output.compressWithGzip() }
        return output
    }

    /// Runs a long blocking job through the store's one bridge (`BlockingWork`): cancelling
    /// the calling task sets the flag `body` checks and wakes an open that waits for a FIFO's
    /// reader.
    static func offThread<T: Sendable>(_ body: @escaping @Sendable (Cancellation) throws -> T) async throws -> T {
        let cancellation = Cancellation()
        let cancel: @Sendable () -> Void = { cancellation.cancel() }
        return try await BlockingWork.run(onCancel: cancel) { _ in try body(cancellation) }
    }
}

/// A task's cancellation, seen from a thread that is not the task's.
final class Cancellation: Sendable {
    private let cancelled = Atomic(false)
    /// Woken by `cancel()`: stops an open that waits for a FIFO's reader (see
    /// `InputWake.openForWriting`). Nil when no pipe could be made: that open then waits.
    let wake = InputWake()

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        wake?.wake()
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws `CancellationError` once `cancel()` was called.
    @inline(__always)
    func check() throws(CancellationError) {
        if cancelled.load(ordering: .relaxed) { throw CancellationError() }
    }
}
