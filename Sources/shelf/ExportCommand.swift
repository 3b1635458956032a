import ArgumentParser
import Foundation
import ShelfStore
import ShelfTransfer

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export users or items as CSV, TSV, JSON or NDJSON.",
        discussion: """
            Rows come by ID from one snapshot. Importing the output into an empty database and \
            exporting again gives the same bytes.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "users or items.")
    var table: TableArgument

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write, or - for stdout (default).", valueName: "file"))
    var output = "-"

    @Option(
        help: """
            csv, tsv, json or ndjson. Default: from the output file's extension (as import reads it; \
            items.csv.gz is csv), else csv.
            """)
    var format: TransferFormat?

    @Option(
        help: ArgumentHelp(
            "The byte between fields: one character such as ; or |, or tab. Default: a comma (a tab for tsv).",
            valueName: "char"))
    var delimiter: String?

    @Flag(
        help: """
            Compress the output with gzip (implied by an output file name ending in .gz). \
            Never written to a terminal.
            """)
    var gzip = false

    /// The format asked for, else the one a delimiter implies (TSV for a tab, else CSV), else
    /// the one the file's name says, else CSV: so that `export users -o users.json` writes
    /// what `import users users.json` reads.
    var resolvedFormat: TransferFormat {
        (try? resolved())?.format ?? .csv
    }

    /// The format and the delimiter named, checked.
    private func resolved() throws -> (format: TransferFormat, delimiter: Delimiter?) {
        do {
            let named = try delimiter.map { text throws(TransferError) in try Delimiter(text) }
            let choice = try Delimiter.resolve(
                named: format, guessed: output == "-" ? nil : TransferFormat(fileName: output), delimiter: named)
            return (choice.format ?? .csv, named)
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// gzip when asked for or when the file's name ends in `.gz`.
    var resolvedCompression: TransferCompression {
        gzip || (output != "-" && TransferCompression(fileName: output) == .gzip) ? .gzip : .none
    }

    @Option(
        help: ArgumentHelp(
            "The columns to write, in this order (comma-separated). Users: id,name,email,created_at; items: "
                + "id,user,title,notes,status,priority,created_at,updated_at. Default: all of them.",
            valueName: "names"))
    var columns: String?

    @Flag(
        help: ArgumentHelp(
            "CSV only: prefix text cells starting with = + - @ (or a tab or carriage return) with ', so "
                + "spreadsheets show them as text instead of running them as formulas."))
    var excelSafe = false

    /// The names `--columns` gives, trimmed; nil without it.
    var columnNames: [String]? {
        columns.map { list in
            list.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// The options the command line gives.
    var exportOptions: ExportOptions {
        get throws {
            let choice = try resolved()
            return ExportOptions(
                format: choice.format, delimiter: choice.delimiter, columns: columnNames, excelSafe: excelSafe,
                compression: resolvedCompression)
        }
    }

    @OptionGroup(title: "Items only") var filter: ItemFilterOptions

    @Flag(help: "No progress bar and no summary on stderr (no summary is printed when the rows go to stdout).")
    var quiet = false

    func validate() throws {
        if table == .users, filter.isFiltering {
            throw ValidationError("--query, --status and --user filter items only")
        }
        let options = try exportOptions
        do {
            let available = table == .users ? ExportOptions.userColumns : ExportOptions.itemColumns
            _ = try options.selectedColumns(among: available)
        } catch {
            throw ValidationError("--columns: \(error.description)")
        }
        if excelSafe, resolvedFormat == .json || resolvedFormat == .ndjson {
            throw ValidationError(
                "--excel-safe applies to CSV only (\(resolvedFormat.rawValue) is not opened as spreadsheet cells); "
                    + "export CSV, or leave it off")
        }
    }

    func run() async throws {
        let store = try await database.openStore()
        let exporter = Exporter(store: store)
        let destination: ExportDestination = output == "-" ? .standardOutput : .file(output)
        let start = ContinuousClock.now
        var count = 0
        // On a terminal, unless the rows go to that terminal too; nothing is counted without it.
        let showsProgress = !quiet && isatty(2) == 1 && !Self.isTerminal(output)
        let progress = ProgressLine(total: 1, label: "Exporting \(table.rawValue)", enabled: showsProgress)
        let update: @Sendable (ExportProgress) -> Void = { progress.update($0.rows, of: $0.total) }
        let report = showsProgress ? update : nil
        let delivery = ExportDelivery()
        do {
            try await exporting(toStandardOutput: output == "-") {
                switch table {
                case .users:
                    count = try await exporter.exportUsers(
                        to: destination, options: try exportOptions, progress: report, delivery: delivery)
                case .items:
                    count = try await exporter.exportItems(
                        matching: try await filter.itemQuery(in: store), to: destination, options: try exportOptions,
                        progress: report, delivery: delivery)
                }
            }
            // Written (a file renamed into place): a signal from now on must not make the exit
            // status say the export was stopped.
            SignalRelay.shared.workIsFinal()
        } catch is ReaderGone {
            // The reader (`| head -1`, a FIFO's) closed its end before the export's end: not
            // the quiet success a list's `| head` is (issue 25, round 12), since what it got is
            // not the export. Ended as GNU tools end there (see `ExportCut`).
            progress.finish()
            throw ExportCut()
        } catch let error where error is CancellationError || Task.isCancelled {
            // A signal: what it stopped is said here (`main` prints nothing for it). A stalled
            // reader's wait ends in a `TransferError` rather than a `CancellationError`.
            progress.finish()
            printError("Interrupted: " + outcome(delivery) + ".")
            throw CancellationError()
        } catch let error as StoreError where output != "-" {
            // The store's message (a read's) does not know it was an export: what it left is
            // said, a file written beside its place (and not renamed there), or the rows a FIFO
            // or device got.
            progress.finish()
            throw StoreError(error.code, error.message + "; " + outcome(delivery), hint: error.hint)
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        // A summary like import's, on stderr; not when the rows themselves went to stdout.
        if output != "-", !quiet {
            let seconds = (ContinuousClock.now - start).seconds
            printError(
                "Exported \(counted(count, String(table.rawValue.dropLast()))) to \(output) (\(resolvedFormat.rawValue)"
                    + (resolvedCompression == .gzip ? ", gzip" : "") + ") in "
                    + "\(String(format: "%.2f", seconds)) s.")
        }
    }

    /// What an export that stopped before its end left at `output`: a file is written beside
    /// its name and renamed there only when complete, so it is as it was; stdout, a FIFO or a
    /// device has got the bytes `delivery` counts, which are not the whole export (hostile
    /// round 12: a FIFO's reader had 64 KiB, and was told the export "was not written").
    func outcome(_ delivery: ExportDelivery) -> String {
        let place = output == "-" ? "stdout" : output
        guard delivery.isInPlace || output == "-" || Self.isWrittenInPlace(output) else {
            return "\(output) was not written (a file that was there is left as it was)"
        }
        guard delivery.bytes > 0 else { return "nothing was written to \(place)" }
        let bytes = counted(delivery.bytes, "byte").grouped
        let written =
            if let rows = delivery.rows {
                "\(counted(rows, "whole row")) (\(bytes))"
            } else {
                bytes + (resolvedCompression == .gzip ? " of gzip data" : "")
            }
        return "the export was stopped after \(written) had been written to \(place): what its reader got is an "
            + "incomplete export, not every row; export again to get them all"
    }

    /// Whether `path` is written in place (a FIFO, a device or a socket) rather than as a new
    /// file renamed over it.
    static func isWrittenInPlace(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
    }

    /// True when `output` (a path, or - for stdout) is a terminal or another character device
    /// (/dev/tty, /dev/stdout on a terminal): the rows are shown there, and a progress bar on
    /// the same screen would mix with them.
    static func isTerminal(_ output: String) -> Bool {
        if output == "-" { return isatty(1) == 1 }
        var status = stat()
        return stat(output, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }
}
