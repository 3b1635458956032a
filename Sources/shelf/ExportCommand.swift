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
        help: "csv, tsv, json or ndjson. Default: from the output file's extension (as import reads it), else csv.")
    var format: TransferFormat?

    @Option(
        help: ArgumentHelp(
            "The byte between fields: one character such as ; or |, or tab. Default: a comma (a tab for tsv).",
            valueName: "char"))
    var delimiter: String?

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

    /// The options the command line gives.
    var exportOptions: ExportOptions {
        get throws {
            let choice = try resolved()
            return ExportOptions(format: choice.format, delimiter: choice.delimiter)
        }
    }

    @OptionGroup(title: "Items only") var filter: ItemFilterOptions

    @Flag(help: "Print no summary on stderr (none is printed when the rows go to stdout).")
    var quiet = false

    func validate() throws {
        if table == .users, filter.isFiltering {
            throw ValidationError("--query, --status and --user filter items only")
        }
        _ = try resolved()
    }

    func run() async throws {
        let store = try await database.openStore()
        let exporter = Exporter(store: store)
        let destination: ExportDestination = output == "-" ? .standardOutput : .file(output)
        let start = ContinuousClock.now
        var count = 0
        try await exporting(toStandardOutput: output == "-") {
            switch table {
            case .users:
                count = try await exporter.exportUsers(to: destination, options: try exportOptions)
            case .items:
                count = try await exporter.exportItems(
                    matching: try await filter.itemQuery(in: store), to: destination, options: try exportOptions)
            }
        }
        // A summary like import's, on stderr; not when the rows themselves went to stdout.
        if output != "-", !quiet {
            let seconds = (ContinuousClock.now - start).seconds
            printError(
                "Exported \(count) \(table.rawValue) to \(output) (\(resolvedFormat.rawValue)) in "
                    + "\(String(format: "%.2f", seconds)) s.")
        }
    }
}
