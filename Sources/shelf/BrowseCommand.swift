import ArgumentParser
import Foundation
import ShelfBrowser
import ShelfPresentation
import ShelfReactive
import ShelfStore
import ShelfTerminal

/// `shelf browse` (and plain `shelf`): the full-screen item browser.
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse", abstract: "Browse, search and edit items full-screen (the default command).",
        discussion: "Press ? in the browser for the keys. Changes made meanwhile by other processes show at once.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Do not use colours (also when NO_COLOR is set).")
    var noColor = false

    @Flag(help: "Do not capture the mouse (lets the terminal select text).")
    var noMouse = false

    @Option(help: ArgumentHelp("Open with this saved view's search and sort (see shelf views).", valueName: "name"))
    var view: String?

    func run() async throws {
        // The screen is drawn on the terminal; logs written there would scramble it.
        try LogSetup.start(verbose: database.verbose, screenOnStandardError: isatty(2) == 1)
        // A clipboard choice it does not know is refused before anything else, not ignored.
        if let problem = Clipboard.choiceProblem(environment: ProcessInfo.processInfo.environment) {
            throw CommandError(problem)
        }
        // A view that does not exist is named before the terminal is asked for.
        var opened: (store: Store, view: SavedView)?
        if let view {
            let store = try await database.openStore()
            opened = (store, try await store.views.requireView(named: view))
        }
        // Refuse early, before creating anything, when there is no terminal to draw on.
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CommandError(
                "the browser needs a terminal: run shelf in a terminal without redirecting input or output, "
                    + "or use shelf watch items / shelf export for scripts")
        }
        let store: Store
        if let opened {
            store = opened.store
        } else {
            store = try await database.openStore()
        }
        // A signal while the store opened: stop before taking over the terminal.
        try Task.checkCancellation()
        var environment = ProcessInfo.processInfo.environment
        if noColor { environment["NO_COLOR"] = "1" }
        // Read before the terminal is taken: its problems show in the status bar, and again
        // on standard error after quitting.
        let configPath = BrowserConfiguration.location(environment: environment)
        let configuration = try await BlockingWork.run { _ in
            configPath.map(BrowserConfiguration.load(path:)) ?? BrowserConfiguration()
        }
        let ending = try await browse(
            store, view: opened?.view, environment: environment, configuration: configuration,
            configPath: configPath)
        if LogSetup.withheld {
            try? FileHandle.standardError.write(
                contentsOf: Data(
                    "shelf: logs were not shown: standard error is the browser's terminal; add 2>FILE to keep them\n"
                        .utf8))
        }
        if case .signal(let number) = ending { throw ExitCode(128 + number) }
    }

    @MainActor
    private func browse(
        _ store: Store, view: SavedView?, environment: [String: String], configuration: BrowserConfiguration,
        configPath: String?
    ) async throws -> Application.Ending {
        let viewModel = BrowserViewModel(store: store, initialView: view)
        let controller = BrowserController(viewModel: viewModel, configuration: configuration)
        do {
            // The application catches SIGINT, SIGTERM and SIGHUP itself while it runs (and then
            // resets them to their default actions): the relay takes them back afterwards.
            defer { SignalRelay.shared.reinstall() }
            let ending = try await Application(rootController: controller, environment: environment, mouse: !noMouse)
                .run()
            // A bulk change still running (q, or a signal: a closed terminal) is cancelled, not
            // left to commit with no session to undo it.
            if let outcome = await viewModel.actions.endBulkWrite() {
                try? FileHandle.standardError.write(contentsOf: Data("shelf: \(outcome)\n".utf8))
            }
            if let problem = await viewModel.actions.endHistory() {
                try? FileHandle.standardError.write(contentsOf: Data("shelf: \(problem)\n".utf8))
            }
            // The configuration's problems first: they were said when the browser started, before
            // anything failed (hostile round 11: a copy failure came before them).
            if let configPath {
                for problem in configuration.problems {
                    // A full or closed stderr must not trap after the browser ended well.
                    try? FileHandle.standardError.write(
                        contentsOf: Data("shelf: \(ConfigCommand.located(problem, path: configPath))\n".utf8))
                }
            }
            // What failed while the browser ran, said again where it stays (a message the status
            // bar cut, or one the next key cleared, is read whole here), its controls escaped;
            // one said many times once, with its count.
            let actions = viewModel.actions
            var said = actions.droppedFailures > 0 ? ["(\(actions.droppedFailures) earlier failures left out)"] : []
            said += actions.failures
            for failure in said {
                try? FileHandle.standardError.write(contentsOf: Data("shelf: \(escapingControls(failure))\n".utf8))
            }
            return ending
        } catch let error as TerminalError {
            throw CommandError(error.description)
        }
    }
}
