// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Finds feedbackd themes as feedbackd does and follows their `parent-name` chains, so a theme a
/// user or a device maker installed for feedbackd is found by hapticd unchanged:
///
/// 1. the `FEEDBACK_THEME` environment variable: a theme file, taken as it is;
/// 2. a theme by name: `$XDG_CONFIG_HOME/feedbackd/themes/NAME.json` (the user's own);
/// 3. for `default` only: the device's theme, `<compatible>.json` in `$XDG_DATA_DIRS/feedbackd/themes`
///    for each of the device tree's compatible strings, most specific first (a PinePhone's
///    `pine64,pinephone-1.2.json`), once per chain, since a device theme names `default` as
///    its parent;
/// 4. `default.json` in `$XDG_DATA_DIRS/feedbackd/themes` (`/usr/local/share:/usr/share` when unset).
///
/// A chain ends at a theme with no parent (`default` may name none); a chain that comes back to a
/// theme it has read, or is deeper than feedbackd allows (10 parents), is refused.
public struct FeedbackdThemeLocator: Sendable {
    /// The environment read: `FEEDBACK_THEME`, `XDG_CONFIG_HOME`, `HOME`, `XDG_DATA_DIRS`.
    public var environment: [String: String]
    /// The device's compatible strings, most specific first.
    public var compatibles: [String]

    /// Most parents a chain may have (feedbackd's limit).
    public static let maximumDepth = 10

    /// A locator for this process: its environment and this machine's device tree.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        compatibles: [String] = FeedbackdThemeLocator.deviceCompatibles()
    ) {
        self.environment = environment
        self.compatibles = compatibles
    }

    /// The device tree's compatible strings (`/proc/device-tree/compatible`: NUL-separated, most
    /// specific first); none on a machine without a device tree.
    public static func deviceCompatibles(path: String = "/proc/device-tree/compatible") -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0).compactMap { String(bytes: $0, encoding: .utf8) }.filter { !$0.isEmpty }
    }

    /// The user's theme folder (`$XDG_CONFIG_HOME/feedbackd/themes`, `~/.config` when unset).
    public var userDirectory: String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/feedbackd/themes" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/feedbackd/themes" }
        return nil
    }

    /// The system's theme folders, in order (`$XDG_DATA_DIRS`, each with `/feedbackd/themes`).
    public var dataDirectories: [String] {
        let dirs = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (dirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dirs).map { $0 + "/feedbackd/themes" }
    }

    /// The theme hapticd uses when it is given none: `FEEDBACK_THEME`'s file when set, else nil
    /// (hapticd's own event table, which needs no theme installed).
    public func environmentTheme() throws(FeedbackdTheme.LoadError) -> FeedbackdTheme? {
        guard let file = environment["FEEDBACK_THEME"], !file.isEmpty else { return nil }
        return try load(file: file)
    }

    /// The theme `reference` names: a file when it holds a `/` or ends in `.json`, else a theme
    /// name looked up as feedbackd does; its chain followed and merged.
    public func load(_ reference: String) throws(FeedbackdTheme.LoadError) -> FeedbackdTheme {
        if reference.contains("/") || reference.hasSuffix(".json") { return try load(file: reference) }
        var search = Search()
        guard let file = path(forName: reference, search: &search) else {
            throw FeedbackdTheme.LoadError(file: "\(reference).json", detail: "no theme named \(reference) in \(searched(reference))")
        }
        return try chain(from: FeedbackdTheme.load(file), search: &search)
    }

    /// The theme in `file`, its chain followed and merged.
    public func load(file: String) throws(FeedbackdTheme.LoadError) -> FeedbackdTheme {
        var search = Search()
        return try chain(from: FeedbackdTheme.load(file), search: &search)
    }

    /// The folders searched for `name`, for an error.
    private func searched(_ name: String) -> String {
        var folders = userDirectory.map { [$0] } ?? []
        if name == "default" && !compatibles.isEmpty {
            folders.append("(the device's " + compatibles.joined(separator: ", ") + ")")
        }
        return (folders + dataDirectories).joined(separator: ", ")
    }

    /// What one chain has used: the device theme is looked for once.
    private struct Search {
        var deviceThemeTried = false
    }

    private func existing(_ path: String) -> String? {
        FileManager.default.isReadableFile(atPath: path) ? path : nil
    }

    /// Where theme `name` is, as feedbackd looks: the user's, the device's (for `default`, once),
    /// the system's.
    private func path(forName name: String, search: inout Search) -> String? {
        if let user = userDirectory, let file = existing("\(user)/\(name).json") { return file }
        if name == "default" && !search.deviceThemeTried {
            search.deviceThemeTried = true
            for compatible in compatibles where !compatible.contains("/") {
                for directory in dataDirectories {
                    if let file = existing("\(directory)/\(compatible).json") { return file }
                }
            }
        }
        for directory in dataDirectories {
            if let file = existing("\(directory)/\(name).json") { return file }
        }
        return nil
    }

    /// `theme` merged over its ancestors.
    private func chain(from theme: FeedbackdTheme, search: inout Search) throws(FeedbackdTheme.LoadError) -> FeedbackdTheme {
        var chain = [theme]
        var seen: Set<String> = [theme.files[0]]
        while let parent = chain.last?.parentName {
            let child = chain.last!.files[0]
            guard chain.count <= Self.maximumDepth else {
                throw FeedbackdTheme.LoadError(file: theme.files[0], detail: "more than \(Self.maximumDepth) parents (feedbackd's limit)")
            }
            guard let file = path(forName: parent, search: &search) else {
                throw FeedbackdTheme.LoadError(file: child, detail: "'parent-name' \(parent): no such theme in \(searched(parent))")
            }
            guard seen.insert(file).inserted else {
                let names = (chain.map(\.name) + [parent]).joined(separator: " → ")
                throw FeedbackdTheme.LoadError(file: child, detail: "'parent-name' \(parent) makes a loop: \(names)")
            }
            chain.append(try FeedbackdTheme.load(file))
        }
        return chain.dropLast().reversed().reduce(chain.last!) { merged, child in child.merged(over: merged) }
    }
}
