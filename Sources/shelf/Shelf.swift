import ArgumentParser
import Foundation

@main
struct Shelf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shelf",
        abstract: "Users and their items in SQLite.",
        discussion: "Exit status: 0 success, 1 the operation failed, 2 a usage error. Messages go to stderr.",
        subcommands: [
            BrowseCommand.self, DemoCommand.self, MigrateCommand.self, UsersCommand.self, ItemsCommand.self,
            ImportCommand.self, ExportCommand.self, BackupCommand.self, WatchCommand.self, TerminalDemoCommand.self,
        ],
        defaultSubcommand: BrowseCommand.self
    )

    /// Runs the command; usage errors exit with 2 (not ArgumentParser's 64), failures with 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
