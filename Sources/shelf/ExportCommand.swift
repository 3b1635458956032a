import ArgumentParser
import Foundation
import ShelfStore
import ShelfTransfer

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export users or items as CSV, JSON or NDJSON.",
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
            csv, json or ndjson. Default: from the output file's extension (as import reads it; \
            items.csv.gz is csv), else csv.
            """)
    var format: TransferFormat?

    @Flag(
        help: """
            Compress the output with gzip (implied by an output file name ending in .gz). \
            Never written to a terminal.
            """)
    var gzip = false

    /// The format asked for, else the one the file's name says, else CSV: so that
    /// `export users -o users.json` writes what `import users users.json` reads.
    var resolvedFormat: TransferFormat {
        format ?? (output == "-" ? nil : TransferFormat(fileName: output)) ?? .csv
    }

    /// gzip when asked for or when the file's name ends in `.gz`.
    var resolvedCompression: TransferCompression {
        gzip || (output != "-" && TransferCompression(fileName: output) == .gzip) ? .gzip : .none
    }

    /// The options the command line gives.
    var exportOptions: ExportOptions {
        ExportOptions(format: resolvedFormat, compression: resolvedCompression)
    }

    @OptionGroup(title: "Items only") var filter: ItemFilterOptions

    @Flag(help: "Print no summary on stderr (none is printed when the rows go to stdout).")
    var quiet = false

    func validate() throws {
        if table == .users, filter.isFiltering {
            throw ValidationError("--query, --status and --user filter items only")
        }
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
                count = try await exporter.exportUsers(to: destination, options: exportOptions)
            case .items:
                count = try await exporter.exportItems(
                    matching: try await filter.itemQuery(in: store), to: destination, options: exportOptions)
            }
        }
        // A summary like import's, on stderr; not when the rows themselves went to stdout.
        if output != "-", !quiet {
            let seconds = (ContinuousClock.now - start).seconds
            printError(
                "Exported \(count) \(table.rawValue) to \(output) (\(resolvedFormat.rawValue)"
                    + (resolvedCompression == .gzip ? ", gzip" : "") + ") in "
                    + "\(String(format: "%.2f", seconds)) s.")
        }
    }
}
