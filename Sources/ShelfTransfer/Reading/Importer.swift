internal import Foundation
internal import ShelfReactive
public import ShelfStore
internal import Synchronization

/// Reads users or items from CSV, JSON or NDJSON into a store, streaming: memory stays flat
/// whatever the input's size.
///
/// An import is all or nothing. By default the first bad row stops it, with the file, line,
/// column, field, value and reason, and the store is left as it was. With `skipInvalid` the
/// valid rows are written and the bad ones reported (and written to `rejectsPath`); with
/// `dryRun` every row is checked, every problem reported, and nothing written. Malformed input
/// that cannot be read past (an unclosed quote, broken JSON) stops every kind of import.
///
/// Other writers are never locked out while the input is read: the rows are read, checked and
/// staged first (see `ImportSession`), holding no lock on the database file, and then written
/// in one short transaction. Other writes wait only for that transaction; reads never wait.
///
/// The methods may be called from any task; the import runs on a thread of its own and blocks
/// no task. Cancelling the calling task makes the call throw `CancellationError` at once, even
/// while the import waits for input, and the store is left as it was: the import can no longer
/// commit, and its thread stops at its next row or statement. (A cancellation that comes once
/// the commit has begun is too late: the call then returns the import's result.) `progress` is
/// called on the import's thread, every few thousand rows. Other errors are `TransferError`
/// (input and options) or `StoreError` (the database).
public struct Importer: Sendable {
    private let store: Store

    /// An importer writing into `store`.
    public init(store: Store) {
        self.store = store
    }

    /// Imports users (`id`, `name`, `email`, `created_at`); with `upsert` and `replace`, an
    /// existing user is matched by email.
    public func importUsers(
        from source: ImportSource, options: ImportOptions = ImportOptions(),
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        try await run(.users, from: source, options: options, progress: progress)
    }

    /// Imports items (`id`, `user` or `user_id`, `title`, `notes`, `status`, `priority`,
    /// `created_at`, `updated_at`); with `upsert` and `replace`, an existing item is matched by ID.
    public func importItems(
        from source: ImportSource, options: ImportOptions = ImportOptions(),
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        try await run(.items, from: source, options: options, progress: progress)
    }

    private func run(
        _ table: ImportTable, from source: ImportSource, options: ImportOptions,
        progress: (@Sendable (ImportProgress) -> Void)?
    ) async throws -> ImportSummary {
        try ColumnPlan.validate(columnMap: options.columnMap, table: table)
        if options.rejectsPath != nil, !options.skipInvalid, !options.dryRun {
            throw TransferError(
                "--rejects needs --skip-invalid (or --dry-run): without it the first bad row stops the import")
        }
        try Task.checkCancellation()
        let clock = ContinuousClock()
        let start = clock.now
        let store = store
        let cancellation = CancellationFlag()
        let wake = InputWake()
        // A thread of its own (`BlockingWork`): reading the input may block (a pipe that
        // pauses), and staging and applying are blocking database calls. The caller is answered
        // at once when cancelled, even while the import waits for input or runs a long
        // statement: once cancelled it can no longer commit, and it stops at its next row or
        // statement.
        let answersAtOnce: @Sendable () -> Bool = { cancellation.cancel() }
        // A read waiting for input (a FIFO nobody writes to, a stalled pipe) stops now, so the
        // import's thread lets go of the store at once.
        let wakeInput: @Sendable () -> Void = { wake?.wake() }
        var summary = try await BlockingWork.runAnsweringCancellation(answersAtOnce: answersAtOnce, onCancel: wakeInput)
        {
            try Transfer(table: table, source: source, options: options, progress: progress, wake: wake)
                .run(store, cancellation)
        }
        summary.duration = clock.now - start
        return summary
    }
}

/// The import's state as its caller and its thread share it: running, cancelled (it will
/// not commit), or committing (too late to cancel).
private final class CancellationFlag: Sendable {
    private let state = Atomic<Int>(0)
    private static let running = 0
    private static let cancelled = 1
    private static let committing = 2

    var isCancelled: Bool { state.load(ordering: .acquiring) == Self.cancelled }

    /// Cancels unless the import has begun to commit; true when it will not commit.
    func cancel() -> Bool {
        state.compareExchange(expected: Self.running, desired: Self.cancelled, ordering: .acquiringAndReleasing)
            .exchanged || isCancelled
    }

    /// Called just before the commit: false when the import was cancelled first.
    func willCommit() -> Bool {
        state.compareExchange(expected: Self.running, desired: Self.committing, ordering: .acquiringAndReleasing)
            .exchanged
    }
}

/// One import's work, made and run on the writer's thread.
private struct Transfer {
    let table: ImportTable
    let input: ByteInput
    let options: ImportOptions
    let progress: (@Sendable (ImportProgress) -> Void)?
    /// The input's path (stdin counts when it is a file: `/dev/stdin` names it then).
    let inputPath: String

    init(
        table: ImportTable, source: ImportSource, options: ImportOptions,
        progress: (@Sendable (ImportProgress) -> Void)?, wake: InputWake?
    ) throws(TransferError) {
        self.table = table
        switch source {
        case .file(let path):
            input = try ByteInput(path: path, wake: wake)
            inputPath = path
        case .standardInput:
            input = ByteInput(descriptor: 0, name: "stdin", closes: false, wake: wake)
            inputPath = "/dev/stdin"
        }
        self.options = options
        self.progress = progress
    }

    func run(_ store: Store, _ cancellation: CancellationFlag) throws -> ImportSummary {
        let protectedPaths = [store.path, inputPath].compactMap { $0 }
        try input.decode(options.encoding)
        let resolved = try Delimiter.resolve(
            named: options.format, guessed: TransferFormat(fileName: input.name), delimiter: options.delimiter)
        var format = try resolved.format ?? TransferFormat.sniff(try input.peekPrefix(512))
        var delimiter = resolved.delimiter ?? format.defaultDelimiter ?? .comma
        // A header separated otherwise (a .csv of tabs, or of ; as Excel writes CSV where the
        // comma is the decimal separator) is read so, unless the format or delimiter was named.
        if options.format == nil, options.delimiter == nil, format.isDelimited,
            let sniffed = Delimiter.sniff(try input.peekPrefix(512), expected: delimiter)
        {
            delimiter = sniffed
            format = sniffed == .tab ? .tsv : .csv
        }
        var reader: any RecordReader =
            switch format {
            case .csv, .tsv: try CSVReader(input: input, delimiter: delimiter)
            case .json: JSONReader(input: input, lines: false)
            case .ndjson: JSONReader(input: input, lines: true)
            }
        let staging = try store.makeImportSession(table: table)
        defer { staging.close() }
        var defaultOwner: Int64?
        if let email = options.defaultOwner {
            guard table == .items else { throw TransferError("--user applies to items only") }
            guard let id = try staging.userID(email: email) else {
                throw TransferError(
                    "--user \(email): no user has this email; add them first "
                        + "(shelf users add --name NAME --email \(ShellQuoting.quoted(email)))"
                )
            }
            defaultOwner = id
        }
        var plan = ColumnPlan(table: table, columns: reader.columns, columnMap: options.columnMap)
        if let csv = reader as? CSVReader {
            try checkHeader(plan, csv, hasDefaultOwner: defaultOwner != nil)
        }
        let rejects = try options.rejectsPath.map { path throws(TransferError) in
            // Never over the store, its -wal/-shm/-journal, or the input being read.
            try Rejects(
                path: path, format: format, delimiter: delimiter, columns: reader.columns, protecting: protectedPaths)
        }
        var summary = ImportSummary(format: format)
        summary.dryRun = options.dryRun
        let continues = options.skipInvalid || options.dryRun
        let totalBytes = input.size
        // Without --skip-invalid, the first bad row the reading finds; an earlier row the
        // store refuses is reported first.
        var firstProblem: TransferError?
        // The first skipped row whose key cannot be read: a replace then deletes nothing.
        var firstUnreadable: TransferError?
        var record = SourceRecord()
        while try reader.next(into: &record) {
            if cancellation.isCancelled { throw CancellationError() }
            summary.rows += 1
            if summary.rows & 4095 == 0 {
                progress?(ImportProgress(rows: summary.rows, bytesRead: input.rawBytesRead, totalBytes: totalBytes))
            }
            if plan.columnCount != reader.columns.count {
                plan = ColumnPlan(table: table, columns: reader.columns, columnMap: options.columnMap)
            }
            do {
                try stage(record, reader: reader, plan: plan, staging: staging, defaultOwner: defaultOwner)
            } catch let problem as TransferError {
                guard continues else {
                    firstProblem = problem
                    break
                }
                summary.skipped += 1
                let key = RowDecoder(
                    fileName: input.name, plan: plan, columns: reader.columns, defaultOwner: defaultOwner
                ).key(record, table: table, fieldsMissing: (reader as? CSVReader)?.fieldCountProblem(record) != nil)
                if key.isUnreadable, firstUnreadable == nil { firstUnreadable = problem }
                try staging.reject(
                    record: record.encoded(), line: problem.position?.line, column: problem.position?.column,
                    field: problem.field, value: problem.value, reason: problem.reason, key: key)
            }
        }
        if options.mode == .replace, summary.rows == summary.skipped, firstProblem == nil {
            // Replace with nothing would delete the whole table (and, for users, every item):
            // far more likely a wrong or truncated file than a wish.
            throw TransferError(
                "\(input.name) has no \(summary.rows == 0 ? "" : "valid ")rows: --mode replace would delete every "
                    + "\(table.rawValue == "users" ? "user and all their items" : "item"); nothing was changed. "
                    + "Check the file; to empty the store, remove its file")
        }
        let context = ProblemContext(
            fileName: input.name, plan: plan, columns: reader.columns, defaultOwner: defaultOwner)
        let commit = !options.dryRun && firstProblem == nil
        if firstProblem == nil, options.mode == .replace {
            // Counted before anything is written, the same way for a dry run: a replace that
            // deletes items (the items the file lacks, or those of the users it lacks) says
            // how many and whose, and asks.
            let preview = try staging.replacePreview()
            if preview.deletionsWithheldBy == nil {
                let deletions = ReplaceDeletions(
                    users: table == .users ? preview.deleted : 0, items: preview.itemsDeleted(from: table),
                    owners: preview.deletedItemOwners.map { .init(email: $0.email, items: $0.items) },
                    ownerCount: preview.itemOwners,
                    widenedViews: preview.widenedViews.map { .init(name: $0.name, owner: $0.owner) })
                summary.deletions = deletions
                if commit, deletions.items > 0, let confirm = options.confirmDeletions {
                    try confirm(deletions)
                    if cancellation.isCancelled { throw CancellationError() }
                    staging.limitItemDeletions(to: deletions.items)
                }
            }
        }
        progress?(
            ImportProgress(rows: summary.rows, bytesRead: input.rawBytesRead, totalBytes: totalBytes, isWriting: true))
        let counts: ImportCounts
        do {
            counts = try staging.apply(
                mode: options.mode, commit: commit, continues: continues,
                isCancelled: { cancellation.isCancelled }, willCommit: { cancellation.willCommit() },
                beforeEnd: { staging in
                    // The rejects file is complete before the commit: a failure to write it
                    // (a full disk) leaves the store unchanged, as the message then says.
                    guard continues else { return }
                    try context.collect(staging, into: &summary, rejects: rejects)
                    try rejects?.commit()
                })
        } catch let failure as ImportRowFailure {
            let record = try staging.record(seq: failure.seq).map { SourceRecord(encoded: $0) } ?? SourceRecord()
            throw context.problem(failure.error, in: record)
        } catch let grew as ImportDeletionsGrew {
            throw TransferError(
                "--mode replace would now delete \(grew.items) items\(table == .users ? " with the users" : ""), "
                    + "more than the \(grew.limit) agreed to (another process added items meanwhile); nothing was "
                    + "changed. Import again")
        }
        if let firstProblem { throw firstProblem }
        summary.inserted = counts.inserted
        summary.updated = counts.updated
        summary.unchanged = counts.unchanged
        summary.deleted = counts.deleted
        summary.itemsDeletedWithUsers = counts.itemsDeletedWithUsers
        if counts.deletionsWithheldBy != nil { summary.deletionsWithheldBy = firstUnreadable }
        summary.skipped += counts.refused
        progress?(ImportProgress(rows: summary.rows, bytesRead: input.rawBytesRead, totalBytes: totalBytes))
        return summary
    }

    /// Checks one record and stages its row; a bad row throws its `TransferError`.
    private func stage(
        _ record: SourceRecord, reader: any RecordReader, plan: ColumnPlan, staging: any ImportSession,
        defaultOwner: Int64?
    ) throws {
        if let csv = reader as? CSVReader, let problem = csv.fieldCountProblem(record) { throw problem }
        if !options.ignoreUnknownColumns, let column = plan.unknownColumns.first(where: { record.value(at: $0) != nil })
        {
            throw TransferError(
                file: input.name, position: record.value(at: column)?.position ?? record.position,
                field: TransferError.escaped(reader.columns.names[column], limit: 60),
                reason: "no field of \(table.rawValue) has this name; rename it, map it with --map FIELD=COLUMN, "
                    + "or pass --ignore-unknown (fields: \(Field.fields(of: table).map(\.name).joined(separator: ", ")))"
            )
        }
        let decoder = RowDecoder(
            fileName: input.name, plan: plan, columns: reader.columns, defaultOwner: defaultOwner)
        if options.mode == .replace, table == .items, let column = decoder.idLikeColumn(record) {
            // With --ignore-unknown this row would be a new item, and the item it meant deleted.
            throw TransferError(
                file: input.name, position: record.value(at: column)?.position ?? record.position,
                field: TransferError.escaped(reader.columns.names[column], limit: 60),
                reason: "the row has no 'id' but this column looks like one; --mode replace would take the row "
                    + "for a new item and delete the item it means. Rename the column to id (or --map id=COLUMN), "
                    + "or empty it")
        }
        switch table {
        case .users: try staging.stage(try decoder.user(record), record: record.encoded())
        case .items: try staging.stage(try decoder.item(record), record: record.encoded())
        }
    }

    private func checkHeader(_ plan: ColumnPlan, _ reader: CSVReader, hasDefaultOwner: Bool) throws(TransferError) {
        let names = TransferError.list(reader.columns.names, limit: 10)
        // One column whose name holds another delimiter: most likely the wrong one was named.
        let other =
            reader.columns.names.count == 1
            ? reader.columns.names.first.flatMap { Delimiter.sniff(Array($0.utf8), expected: reader.delimiter) } : nil
        func missing(_ field: Field, _ advice: String) -> TransferError {
            TransferError(
                file: input.name, position: SourcePosition(line: 1, column: 1),
                reason: "the header has no '\(field.name)' column (it has \(names)); "
                    + (other.map { "it looks separated by \($0): pass --delimiter \($0.argument)" }
                        ?? advice))
        }
        let mapAdvice = { (field: Field) in "add one, or read it from another column with --map \(field.name)=COLUMN" }
        switch table {
        case .users:
            for field in [Field.name, .email] where plan[field] == nil { throw missing(field, mapAdvice(field)) }
        case .items:
            if plan[.title] == nil { throw missing(.title, mapAdvice(.title)) }
            if plan[.user] == nil, plan[.userID] == nil, !hasDefaultOwner {
                throw missing(
                    .user, "add the owners' emails, map a column with --map user=COLUMN, or pass --user EMAIL")
            }
        }
        if !options.ignoreUnknownColumns, let column = plan.unknownColumns.first {
            throw TransferError(
                file: input.name, position: reader.headerPositions[column],
                field: TransferError.escaped(reader.columns.names[column], limit: 60),
                reason: "no field of \(table.rawValue) has this name; rename it, map it with --map FIELD=COLUMN, "
                    + "or pass --ignore-unknown (fields: \(Field.fields(of: table).map(\.name).joined(separator: ", ")))"
            )
        }
    }
}

/// What turns a staged reject back into a `TransferError` naming its place in the input.
private struct ProblemContext {
    let fileName: String
    let plan: ColumnPlan
    let columns: Columns
    let defaultOwner: Int64?

    /// The problem for a row the store refused, blaming the field it names.
    func problem(_ error: ImportRowError, in record: SourceRecord) -> TransferError {
        var field = error.field.flatMap { name in Field.allCases.first { $0.name == name } }
        // The owner may come from user_id rather than user.
        if field == .user, let column = plan[.userID], record.value(at: column)?.kind ?? .null != .null {
            field = .userID
        }
        guard let field else { return TransferError(file: fileName, position: record.position, reason: error.message) }
        let decoder = RowDecoder(fileName: fileName, plan: plan, columns: columns, defaultOwner: defaultOwner)
        return decoder.problem(error.message, field: field, in: record)
    }

    /// Adds every reject, in input order, to `summary.problems` (up to its limit) and to
    /// `rejects`.
    func collect(_ staging: any ImportSession, into summary: inout ImportSummary, rejects: Rejects?) throws {
        try staging.forEachReject { reject in
            let record = SourceRecord(encoded: reject.record)
            let problem: TransferError
            if reject.placed {
                var placed = TransferError(
                    file: fileName,
                    position: reject.line.flatMap { line in
                        reject.column.map { SourcePosition(line: line, column: $0) }
                    },
                    field: reject.field, reason: reject.reason)
                // Already shortened when the problem was made.
                placed.value = reject.value
                problem = placed
            } else {
                problem = self.problem(ImportRowError(field: reject.field, message: reject.reason), in: record)
            }
            if summary.problems.count < ImportSummary.problemLimit { summary.problems.append(problem) }
            try rejects?.write(record, columns: columns, reason: problem.description)
            return rejects != nil || summary.problems.count < ImportSummary.problemLimit
        }
    }
}
