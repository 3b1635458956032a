internal import Foundation
public import ShelfStore

/// Reads users or items from CSV, JSON or NDJSON into a store, streaming: memory stays flat
/// whatever the input's size.
///
/// An import is one transaction. By default the first bad row stops it, with the file, line,
/// column, field, value and reason, and the store is left as it was. With `skipInvalid` the
/// valid rows are written and the bad ones reported (and written to `rejectsPath`); with
/// `dryRun` every row is checked, every problem reported, and nothing written. Malformed input
/// that cannot be read past (an unclosed quote, broken JSON) stops every kind of import.
///
/// The methods may be called from any task; the import runs on the store's writer thread
/// and blocks no task. Other writes to the same store wait until it ends; reads do not. `progress` is called on that thread, every few thousand rows. Errors
/// are `TransferError` (input and options) or `StoreError` (the database).
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
        let clock = ContinuousClock()
        let start = clock.now
        // The input is opened and read on the writer's thread, inside the transaction.
        var summary = try await store.importing(mode: options.mode, commit: !options.dryRun) { writer in
            try Transfer(table: table, source: source, options: options, progress: progress).run(writer)
        }
        summary.duration = clock.now - start
        return summary
    }
}

/// One import's work, made and run on the writer's thread.
private struct Transfer {
    let table: ImportTable
    let input: ByteInput
    let options: ImportOptions
    let progress: (@Sendable (ImportProgress) -> Void)?

    init(
        table: ImportTable, source: ImportSource, options: ImportOptions,
        progress: (@Sendable (ImportProgress) -> Void)?
    ) throws(TransferError) {
        self.table = table
        switch source {
        case .file(let path): input = try ByteInput(path: path)
        case .standardInput: input = ByteInput(descriptor: 0, name: "stdin", closes: false)
        }
        self.options = options
        self.progress = progress
    }

    func run(_ writer: ImportWriter) throws -> ImportSummary {
        let format: TransferFormat
        if let given = options.format {
            format = given
        } else if let named = TransferFormat(fileName: input.name) {
            format = named
        } else {
            format = TransferFormat.sniff(try input.peekPrefix(64))
        }
        var reader: any RecordReader =
            switch format {
            case .csv: try CSVReader(input: input)
            case .json: JSONReader(input: input, lines: false)
            case .ndjson: JSONReader(input: input, lines: true)
            }
        var defaultOwner: Int64?
        if let email = options.defaultOwner {
            guard table == .items else { throw TransferError("--user applies to items only") }
            guard let id = try writer.userID(email: email) else {
                throw TransferError(
                    "--user \(email): no user has this email; add them first (shelf users add --name NAME --email \(email))"
                )
            }
            defaultOwner = id
        }
        var plan = ColumnPlan(table: table, columns: reader.columns, columnMap: options.columnMap)
        if let csv = reader as? CSVReader {
            try checkHeader(plan, csv, hasDefaultOwner: defaultOwner != nil)
        }
        let rejects = try options.rejectsPath.map { path throws(TransferError) in
            try Rejects(path: path, format: format, columns: reader.columns)
        }
        var summary = ImportSummary(format: format)
        summary.dryRun = options.dryRun
        let continues = options.skipInvalid || options.dryRun
        let totalBytes = input.size
        var record = SourceRecord()
        while try reader.next(into: &record) {
            summary.rows += 1
            if summary.rows & 4095 == 0 {
                progress?(ImportProgress(rows: summary.rows, bytesRead: input.offset, totalBytes: totalBytes))
            }
            if plan.columnCount != reader.columns.count {
                plan = ColumnPlan(table: table, columns: reader.columns, columnMap: options.columnMap)
            }
            do {
                let outcome = try write(
                    record, reader: reader, plan: plan, writer: writer, defaultOwner: defaultOwner)
                switch outcome {
                case .inserted: summary.inserted += 1
                case .updated: summary.updated += 1
                case .unchanged: summary.unchanged += 1
                }
            } catch let problem as TransferError {
                guard continues else { throw problem }
                summary.skipped += 1
                if summary.problems.count < ImportSummary.problemLimit { summary.problems.append(problem) }
                try rejects?.write(record, columns: reader.columns, reason: problem.description)
            }
        }
        summary.deleted = try writer.finish(table: table)
        try rejects?.commit()
        progress?(ImportProgress(rows: summary.rows, bytesRead: input.offset, totalBytes: totalBytes))
        return summary
    }

    private func write(
        _ record: SourceRecord, reader: any RecordReader, plan: ColumnPlan, writer: ImportWriter,
        defaultOwner: Int64?
    ) throws -> ImportWriter.Outcome {
        if let csv = reader as? CSVReader, let problem = csv.fieldCountProblem(record) { throw problem }
        if !options.ignoreUnknownColumns, let column = plan.unknownColumns.first(where: { record.value(at: $0) != nil })
        {
            throw TransferError(
                file: input.name, position: record.value(at: column)?.position ?? record.position,
                field: reader.columns.names[column],
                reason: "no field of \(table.rawValue) has this name; rename it, map it with --map FIELD=COLUMN, "
                    + "or pass --ignore-unknown (fields: \(Field.fields(of: table).map(\.name).joined(separator: ", ")))"
            )
        }
        let decoder = RowDecoder(
            fileName: input.name, plan: plan, columns: reader.columns, defaultOwner: defaultOwner)
        do {
            switch table {
            case .users: return try writer.write(try decoder.user(record))
            case .items: return try writer.write(try decoder.item(record) { try writer.userID(email: $0) })
            }
        } catch let error as ImportRowError {
            var field = error.field.flatMap { name in Field.allCases.first { $0.name == name } }
            // The owner may come from user_id rather than user.
            if field == .user, let column = plan[.userID], record.value(at: column)?.kind ?? .null != .null {
                field = .userID
            }
            if let field { throw decoder.problem(error.message, field: field, in: record) }
            throw TransferError(file: input.name, position: record.position, reason: error.message)
        }
    }

    private func checkHeader(_ plan: ColumnPlan, _ reader: CSVReader, hasDefaultOwner: Bool) throws(TransferError) {
        let names = reader.columns.names.joined(separator: ", ")
        func missing(_ field: Field, _ advice: String) -> TransferError {
            TransferError(
                file: input.name, position: SourcePosition(line: 1, column: 1),
                reason: "the header has no '\(field.name)' column (it has \(names)); \(advice)")
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
                file: input.name, position: reader.headerPositions[column], field: reader.columns.names[column],
                reason: "no field of \(table.rawValue) has this name; rename it, map it with --map FIELD=COLUMN, "
                    + "or pass --ignore-unknown (fields: \(Field.fields(of: table).map(\.name).joined(separator: ", ")))"
            )
        }
    }
}
