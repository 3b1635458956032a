import ArgumentParser
import Foundation
import ShelfStore
import ShelfTransfer

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import users or items from CSV, TSV, JSON or NDJSON.",
        discussion: """
            The import is one transaction: by default the first bad row stops it with FILE:LINE:COLUMN, \
            the field, the value and the reason, and the database is left unchanged. Items name their \
            owner by email (user) or ID (user_id); import the users first. A SQLite database that does not \
            exist is created only when the import succeeds: a failed import or a --dry-run creates nothing \
            (a dry run then checks against an empty database).

            --mode replace with --skip-invalid: a skipped row keeps what it names, so a typo never deletes \
            the row it was meant for. An item row keeps the item with its ID; a user row keeps the user \
            with its ID and the user with its email (as written), and so their items. A skipped row that \
            names something that cannot be read (an ID that is not a whole number, a user row without a \
            readable ID or an email of the form name@host, a CSV row with the wrong number of fields) \
            might mean any row: then nothing at all is deleted, and the summary says which row to fix. \
            A skipped row without an ID (items) names a new item and keeps nothing, unless it has a value \
            in a column no field reads whose name holds "id" (any letter case: idd, ID_, item_id; \
            a misspelled key): such a row might mean an existing item, so with --mode replace it is \
            refused even with --ignore-unknown, and skipped it withholds every deletion.

            --mode replace deletes items: of items, the items the file lacks, whoever owns them (an export \
            of one user's items, imported with replace, deletes everyone else's); of users, the items of \
            the users the file lacks. Before anything is written it counts them and names their owners \
            (--dry-run shows the same counts), then asks on a terminal, or, when stdin is not a terminal \
            (or holds the data), refuses unless --yes is given; refused, nothing is changed.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "users or items.")
    var table: TableArgument

    @Argument(
        help: ArgumentHelp(
            "The file to read, or - for stdin; gzip (.gz, or recognized by its bytes) is decompressed.",
            valueName: "file"))
    var file: String

    @Option(
        help: """
            csv, tsv, json or ndjson. Default: from the file's extension (items.csv.gz is csv), else from its \
            first bytes.
            """)
    var format: TransferFormat?

    @Option(
        help: ArgumentHelp(
            "The byte between fields: one character such as ; or |, or tab. Default: a comma (a tab for tsv); "
                + "without --format and --delimiter, a header line without commas is read by its tabs, ; or |.",
            valueName: "char"))
    var delimiter: String?

    @Option(
        help: ArgumentHelp(
            "utf-8, utf-16le, utf-16be, latin1 or windows-1252. Default: UTF-8, or UTF-16 when a byte order mark "
                + "or the first characters show it.",
            valueName: "name"))
    var encoding: String?

    @Option(
        help:
            "insert (existing IDs or emails are errors), upsert (update them) or replace (also delete rows the file lacks)."
    )
    var mode: ImportMode = .insert

    @Flag(help: "Write the valid rows and skip the bad ones (see --rejects).")
    var skipInvalid = false

    @Option(help: ArgumentHelp("Write skipped rows, each with its reason, to this file.", valueName: "file"))
    var rejects: String?

    @Flag(help: "Check every row and report every problem; write nothing.")
    var dryRun = false

    @Option(
        name: .customLong("map"),
        help: ArgumentHelp("Read a field from a differently named column (repeatable).", valueName: "field=column"))
    var maps: [String] = []

    @Flag(help: "Ignore columns that are no field, instead of refusing the file.")
    var ignoreUnknown = false

    @Option(help: ArgumentHelp("Items only: the owner of rows without one.", valueName: "email"))
    var user: String?

    @Flag(help: "No progress bar and no summary.")
    var quiet = false

    @Flag(
        name: [.customShort("y"), .long],
        help: "Delete without asking the items that --mode replace deletes (see above).")
    var yes = false

    var columnMap: [String: String] {
        Dictionary(
            maps.compactMap { pair in
                pair.firstIndex(of: "=").map { (String(pair[..<$0]), String(pair[pair.index(after: $0)...])) }
            }
        ) { $1 }
    }

    func validate() throws {
        for pair in maps {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex,
                pair.index(after: equals) != pair.endIndex
            else { throw ValidationError("--map \(pair): write it as FIELD=COLUMN, e.g. --map title=Name") }
        }
        let fields = maps.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) }
        if let twice = fields.first(where: { field in fields.filter { $0 == field }.count > 1 }) {
            throw ValidationError("--map names the field '\(twice)' twice; map each field from one column")
        }
        if rejects != nil, !skipInvalid, !dryRun {
            throw ValidationError("--rejects needs --skip-invalid (or --dry-run)")
        }
        if user != nil, table == .users { throw ValidationError("--user applies to items only") }
        if yes, mode != .replace {
            throw ValidationError("--yes applies to --mode replace only (it deletes the items it would ask about)")
        }
        _ = try parsedDelimiter()
        _ = try parsedEncoding()
    }

    /// The delimiter named, checked.
    func parsedDelimiter() throws -> Delimiter? {
        guard let delimiter else { return nil }
        do {
            let parsed = try Delimiter(delimiter)
            _ = try Delimiter.resolve(
                named: format, guessed: file == "-" ? nil : TransferFormat(fileName: file), delimiter: parsed)
            return parsed
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// The encoding named, checked.
    func parsedEncoding() throws -> TextEncoding? {
        guard let encoding else { return nil }
        guard let parsed = TextEncoding(name: encoding) else {
            throw ValidationError(
                "--encoding \(encoding): Shelf reads utf-8, utf-16le, utf-16be, latin1 and windows-1252; "
                    + "convert other encodings first: iconv -f ENCODING -t UTF-8 FILE > FILE.utf8")
        }
        return parsed
    }

    func run() async throws {
        // A database that does not exist yet is made in a scratch store and put in place only
        // when the import succeeds.
        var created: NewDatabase?
        if !database.demo, case .sqlite(let path) = try database.resolvedLocation(),
            !FileManager.default.fileExists(atPath: path)
        {
            created = try NewDatabase(path: path)
        }
        defer { created?.discard() }
        let store: Store
        if let created {
            store = created.store
        } else {
            store = try await database.openStore(creating: true)
        }
        if let rejects { try Self.checkRejects(rejects, store: store, input: file, database: created?.path) }
        var options = ImportOptions(
            format: format, mode: mode, skipInvalid: skipInvalid, rejectsPath: rejects, dryRun: dryRun,
            columnMap: columnMap, ignoreUnknownColumns: ignoreUnknown, defaultOwner: user,
            encoding: try parsedEncoding(), delimiter: try parsedDelimiter())
        let (yes, fromStandardInput, table) = (yes, file == "-", table)
        options.confirmDeletions = { deletions in
            try Self.confirm(deletions, table: table, yes: yes, dataFromStandardInput: fromStandardInput)
        }
        // A replace of users removes the users the file lacks; views of their items widen.
        let ownedViews =
            table == .users && mode == .replace && !dryRun ? try await WidenedViews.owned(in: store) : []
        let source: ImportSource = file == "-" ? .standardInput : .file(file)
        let progress = ProgressLine(total: 1, label: "Importing \(table.rawValue)", enabled: !quiet)
        let importer = Importer(store: store)
        let run = table == .users ? importer.importUsers : importer.importItems
        // What "unchanged" covers, exactly: on PostgreSQL the rows, and the ID sequences only as
        // far as a rollback can put them back (sequences are not transactional).
        let unchanged =
            store.location.hasPrefix("postgres")
            ? "the database's rows are unchanged (its ID sequences are put back as they were, unless the connection "
                + "was lost or another client took IDs meanwhile: then later IDs skip some numbers, and none is reused)"
            : "the database is unchanged"
        let summary: ImportSummary
        do {
            summary = try await run(source, options) {
                if $0.isWriting {
                    progress.writing(rows: $0.rows)
                } else {
                    progress.update(rows: $0.rows, bytes: $0.bytesRead, totalBytes: $0.totalBytes)
                }
            }
            if let created, !summary.dryRun { try await created.install() }
            // Committed (or a dry run finished): a signal from now on does not undo it, so it
            // must not make the exit status say the import was stopped.
            SignalRelay.shared.workIsFinal()
        } catch let error where error is CancellationError || Task.isCancelled {
            // Whatever the interrupted read threw (a cancellation, or a read that a wake-up
            // ended): the signal is what stopped it, and main reports no error after a signal.
            progress.finish()
            printError("Interrupted: nothing was imported; \(unchanged).")
            throw CancellationError()
        } catch let error as TransferError {
            progress.finish()
            throw CommandError("\(error)\nNothing was imported; \(unchanged).")
        } catch let error as StoreError where error.isDiskFull {
            // The import's one transaction rolled back: say so, as for a refused file (hostile
            // round 16: only SQLite's "free some space and retry" was printed).
            progress.finish()
            throw CommandError("\(error)\nNothing was imported; \(unchanged).")
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        for problem in summary.problems { printError(problem.description) }
        if summary.skipped > summary.problems.count {
            printError("… and \(counted(summary.skipped - summary.problems.count, "more problem"))")
        }
        if let withheld = summary.deletionsWithheldBy {
            printError(
                "Nothing was deleted: the skipped row at \(withheld.file ?? file):\(withheld.position.map { "\($0)" } ?? "?") names a row that cannot be read, so it "
                    + "might mean any of them. Fix that row and import again to delete the rows the file lacks.")
        }
        if !quiet { printError(summaryLine(summary, created: created?.path)) }
        let widened =
            summary.dryRun
            ? WidenedViews.describe(
                (summary.deletions?.widenedViews ?? []).map { ($0.name, $0.owner) }, removed: false)
            : try await WidenedViews.note(before: ownedViews, store: store)
        if let widened {
            printError(SuggestedCommand.naming(databaseOf: CommandLine.arguments, in: widened))
        }
        if summary.dryRun, summary.skipped > 0 { throw ExitCode.failure }
    }

    /// Refuses, before anything is read, a rejects file that is the database (or a part of
    /// it), the input itself (stdin included, when it is a file), or any SQLite file.
    static func checkRejects(_ path: String, store: Store, input: String, database: String? = nil) throws {
        var protecting = (store.path.map { [$0] } ?? []) + (database.map { [$0] } ?? [])
        if input != "-" {
            protecting.append(input)
        } else {
            var status = stat()
            if fstat(0, &status) == 0, status.st_mode & S_IFMT == S_IFREG { protecting.append("/dev/stdin") }
        }
        do {
            _ = try OutputSafety.check(path: path, protecting: protecting)
        } catch {
            throw CommandError("--rejects \(error.description); nothing was imported")
        }
    }

    private func summaryLine(_ summary: ImportSummary, created: String?) -> String {
        let source = file == "-" ? "stdin" : file
        var parts = ["\(summary.inserted) inserted", "\(summary.updated) updated"]
        if summary.unchanged > 0 { parts.append("\(summary.unchanged) unchanged") }
        if mode == .replace {
            // Items: whose were deleted (the users deleted are the owners of theirs).
            let owners = table == .items ? summary.deletions.map(Self.ownersNote) ?? "" : ""
            parts.append(
                "\(summary.deleted) deleted"
                    + (table == .users && summary.deleted > 0
                        ? " (with their \(counted(summary.itemsDeletedWithUsers, "item")))" : owners))
        }
        parts.append("\(summary.skipped) skipped")
        let time = String(format: "%.2f s", summary.duration.seconds)
        let verb = summary.dryRun ? "Checked" : "Imported"
        var line =
            "\(verb) \(counted(summary.rows, "row")) of \(table.rawValue) from \(source) (\(summary.format.rawValue)) "
            + "in \(time): "
        line += parts.joined(separator: ", ") + "."
        if summary.dryRun {
            line += " Dry run: nothing was written."
            if let created { line += " No database is at \(created): checked against an empty one, created nothing." }
        } else if let created {
            line += " Created \(created)."
        }
        if let rejects, summary.skipped > 0 { line += " Skipped rows are in \(rejects)." }
        return line
    }
}
