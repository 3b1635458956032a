internal import Foundation
internal import ShelfTerminal

extension BrowserConfiguration {
    /// A complete configuration file with every setting at its default and a comment for each,
    /// to copy and change (`shelf config --defaults`). Read back, it changes nothing.
    public static var defaultFileText: String {
        var out: [String] = [
            "# Shelf's browser: keys, colours and the item list's columns.",
            "# Save as $XDG_CONFIG_HOME/shelf/config.toml (or ~/.config/shelf/config.toml).",
            "# Every setting below is the default: delete what you do not change.",
            "#",
            "# Keys: a list of names per action; binding keys replaces the action's defaults, and [] unbinds it.",
            "# A name is \(KeyName.knownNames).",
            "# Press ? in the browser to see the keys in force.",
        ]
        for mode in KeyMode.allCases {
            out += ["", "# \(mode.title)", "[keys.\(mode.rawValue)]"]
            for action in KeyAction.all where action.mode == mode {
                let keys = action.defaultKeys.map { "\"\(escaped(KeyName.name(of: $0)))\"" }.joined(separator: ", ")
                out.append("\(action.name) = [\(keys)]  # \(action.summary)")
            }
        }
        out += [
            "",
            "# Colours: words such as \"bold red\", \"reverse\", \"underline #ff8800 on 236\" (attributes bold, dim,",
            "# italic, underline, reverse; colours by name, bright-NAME, #rrggbb or 0-255; \"on\" before a",
            "# background; \"plain\" for none). NO_COLOR (or --no-color) still turns every colour off.",
            "[colors]",
        ]
        let palette = Palette()
        for role in Palette.roles {
            out.append("\(role.name) = \"\(StyleName.name(of: palette[keyPath: role.path]))\"  # \(role.summary)")
        }
        out += [
            "",
            "# The item list: its columns in order (leave one out to hide it), and their widths in cells.",
            "[list]",
            "columns = [" + ItemColumn.defaults.map { "\"\($0.field.rawValue)\"" }.joined(separator: ", ") + "]",
            "",
            "[list.widths]",
        ]
        for column in ItemColumn.defaults {
            out.append("\(column.field.rawValue) = \(column.width)  # \(ItemColumn.summary(of: column.field))")
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
