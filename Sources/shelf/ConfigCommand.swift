import ArgumentParser
import Foundation
import ShelfBrowser

/// `shelf config`: where the browser's configuration file is, whether it reads cleanly, and a
/// complete file of defaults to start from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the browser's configuration file: where it is and what is wrong in it.",
        discussion: """
            The browser reads keys, colours and list columns from $XDG_CONFIG_HOME/shelf/config.toml \
            (or ~/.config/shelf/config.toml). Start one with: shelf config --defaults > FILE
            """)

    @Flag(help: "Print a complete configuration file with every default, commented, and nothing else.")
    var defaults = false

    func run() throws {
        if defaults {
            print(BrowserConfiguration.defaultFileText, terminator: "")
            return
        }
        guard let path = BrowserConfiguration.location(environment: ProcessInfo.processInfo.environment) else {
            throw CommandError("no configuration file: neither XDG_CONFIG_HOME nor HOME is set")
        }
        // A symbolic link that leads nowhere is read, and named as such: "does not exist" with
        // advice to write through it failed (hostile tester, round 8).
        let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
        guard FileManager.default.fileExists(atPath: path) || isLink else {
            print(
                "\(path) does not exist: the browser uses its defaults (shelf config --defaults > \(path) to start one)"
            )
            return
        }
        let configuration = BrowserConfiguration.load(path: path)
        print(path)
        for problem in configuration.problems { print(Self.located(problem, path: path)) }
        if configuration.problems.isEmpty {
            print("It reads cleanly.")
        } else {
            throw ExitCode(1)
        }
    }

    /// The problem with the file's whole path in front of its line, its control characters
    /// shown escaped (a value quoted from the file may hold ESC or OSC sequences).
    static func located(_ problem: ConfigurationProblem, path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return escapingControls(
            directory.isEmpty ? problem.fullDescription : directory + "/" + problem.fullDescription)
    }
}
