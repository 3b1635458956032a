import ArgumentParser
import Foundation
import ShelfStore

@main
struct Shelf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shelf",
        abstract: "Users and their items in SQLite or PostgreSQL.",
        discussion: """
            Exit status: 0 success, 1 the operation failed, 2 a usage error, 128 + N when signal N \
            (Ctrl-C, SIGTERM, SIGHUP) stopped the command. Messages go to stderr.
            """,
        version: shelfVersion,
        subcommands: [
            BrowseCommand.self, DemoCommand.self, MigrateCommand.self, UsersCommand.self, ItemsCommand.self,
            ImportCommand.self, ExportCommand.self, BackupCommand.self, CopyCommand.self, RestoreCommand.self,
            WatchCommand.self, ViewsCommand.self, ServeCommand.self, TokensCommand.self, ConfigCommand.self,
        ],
        defaultSubcommand: BrowseCommand.self
    )

    /// Runs the command in a task of its own that a signal cancels, and exits only once it
    /// has returned, so the command's store is always closed (and its WAL checkpointed and
    /// removed) first. Usage errors exit with 2 (not ArgumentParser's 64), failures with 1, a
    /// signal with 128 + its number, a closed output pipe quietly with 0.
    static func main() async {
        StandardOutput.prepare()
        let signals = SignalRelay.shared
        let command = Task { try await runCommand() }
        signals.onSignal { _ in command.cancel() }
        var status: Int32
        let result = await command.result
        // Every store the command opened is closed (its WAL checkpointed and removed) first.
        await OpenDatabases.closeAll()
        OpenDatabases.warnAboutUnmergedWAL()
        switch result {
        case .success: status = 0
        case .failure(let error): status = signals.stoppingSignal == nil ? report(error) : 0
        }
        do {
            try StandardOutput.flushStandardIO()
        } catch is ReaderGone {
        } catch {
            if status == 0 {
                printError("Error: \(error)")
                status = 1
            }
        }
        if let number = signals.stoppingSignal {
            status = 128 + number
        } else if case .failure(let error) = result, error is ExportCut {
            endBySIGPIPE()
        }
        Foundation.exit(status)
    }

    /// Ends the process by SIGPIPE, as a GNU tool whose pipe's reader went away ends (see
    /// `ExportCut`): its parent sees the signal, a shell the status 141. Called once every
    /// store is closed and stdout flushed; `main` exits with 141 should the signal not end it.
    private static func endBySIGPIPE() {
        signal(SIGPIPE, SIG_DFL)
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
        raise(SIGPIPE)
    }

    private static func runCommand() async throws {
        // Swift repairs invalid UTF-8 in arguments with U+FFFD; a title typed in another
        // encoding would be stored changed. Refuse it, as an import refuses such a file.
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else {
                continue
            }
            throw ValidationError(
                "argument \(index) (\(CommandLine.arguments[index].debugDescription)) is not valid UTF-8; "
                    + "shelf takes text in UTF-8 (convert it, e.g. with iconv -f latin1 -t utf-8)")
        }
        // A first word that names no command is a mistyped command, not an argument of the
        // default one (`browse`): answer with the top-level usage and the list of commands.
        if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"),
            !configuration.subcommands.contains(where: { $0._commandName == first }), first != "help"
        {
            throw UnknownCommand(name: first)
        }
        var command = try parseAsRoot()
        if var command = command as? any AsyncParsableCommand {
            try await command.run()
        } else {
            try command.run()
        }
    }

    /// Prints what `error` says where it belongs; returns the exit status.
    private static func report(_ error: any Error) -> Int32 {
        if error is ReaderGone { return 0 }
        if error is ExportCut { return 128 + SIGPIPE }
        if let unknown = error as? UnknownCommand {
            printError("Error: '\(unknown.name)' is not a shelf command.\n\n" + helpMessage(for: Shelf.self))
            return 2
        }
        let code = exitCode(for: error)
        guard code != .success else {
            // Help and the version: output asked for, written like any other.
            do {
                try printLine(fullMessage(for: error))
                return 0
            } catch is ReaderGone {
                return 0
            } catch {
                printError("Error: \(error)")
                return 1
            }
        }
        // An exit code alone (a signal that ended the browser) has no message.
        // Suggested commands reach the database this run used (issue 21: they left out --db).
        var message = SuggestedCommand.naming(databaseOf: CommandLine.arguments, in: fullMessage(for: error))
        if let hint = (error as? StoreError)?.hint { message += " " + hint.rendered }
        if !message.isEmpty { printError(message) }
        return code == .validationFailure ? 2 : code.rawValue
    }
}

/// The version `shelf --version` prints.
let shelfVersion = "0.3.0"

/// The first word of the command line names no command.
struct UnknownCommand: Error {
    let name: String
}
