import Foundation
import ShelfTerminal

// `terminal-demo`: the terminal kit on its own, a filtered list of 10,000 lines (or
// `--lines N`), with no store. An example of an app built on ShelfTerminal and
// ShelfReactive, not part of the shipped `shelf`: `swift run terminal-demo`.

/// The value of `--lines N`, or 10,000; exits 2 with a usage line on anything else.
func requestedLines(_ arguments: [String]) -> Int {
    switch arguments.count {
    case 0: return 10_000
    case 2 where arguments[0] == "--lines": if let count = Int(arguments[1]), count >= 0 { return count }
    default: break
    }
    FileHandle.standardError.write(Data("usage: terminal-demo [--lines N]\n".utf8))
    exit(2)
}

@MainActor
func runDemo(lines: Int) async -> Int32 {
    let controller = DemoListController(viewModel: DemoListModel(count: lines))
    do {
        let ending = try await Application(rootController: controller, environment: ProcessInfo.processInfo.environment)
            .run()
        if case .signal(let number) = ending { return 128 + number }
        return 0
    } catch {
        FileHandle.standardError.write(Data("terminal-demo: \(error)\n".utf8))
        return 1
    }
}

exit(await runDemo(lines: requestedLines(Array(CommandLine.arguments.dropFirst()))))
