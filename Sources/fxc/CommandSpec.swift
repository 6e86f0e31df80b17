// What a command is and takes, declared once: `CommandArguments` reads only
// declared options, and `--help` is rendered from the same declarations, so
// the help cannot list an option the command does not read, nor miss one.
// In the spirit of swift-argument-parser, which cannot be fetched here.

/// One option of a command, or one kind of positional argument (listed in its help only).
///
///     .flag("-r", "--recursive", help: "walk directories to any depth")
///     .option("--quality", value: "1…100", help: "JPEG quality", default: "90")
///     .repeatable("--param", value: "NAME=VALUE", help: "set a parameter at run time")
struct OptionSpec {
  enum Kind {
    /// Present or absent, no value: `--json`.
    case flag
    /// A value, given at most once: `--image FILE`.
    case option
    /// A value, given any number of times: `--param NAME=VALUE`.
    case repeatable
    /// A positional argument, like the input files: in the help, never parsed as an option.
    case positional
  }

  /// Every spelling, in the order the help shows them (`["-j", "--threads"]`); empty for a positional.
  var names: [String]
  /// What the value stands for, like `N` or `png|jpeg`; `nil` for a flag.
  var value: String?
  var help: String
  var kind: Kind
  /// The value when the option is absent, as the help shows it.
  var defaultValue: String?

  static func flag(_ names: String..., help: String) -> OptionSpec {
    OptionSpec(names: names, value: nil, help: help, kind: .flag)
  }

  static func option(_ names: String..., value: String, help: String, default: String? = nil) -> OptionSpec {
    OptionSpec(names: names, value: value, help: help, kind: .option, defaultValue: `default`)
  }

  static func repeatable(_ names: String..., value: String, help: String, default: String? = nil) -> OptionSpec {
    OptionSpec(names: names, value: value, help: help, kind: .repeatable, defaultValue: `default`)
  }

  static func positional(_ value: String, help: String) -> OptionSpec {
    OptionSpec(names: [], value: value, help: help, kind: .positional)
  }

  /// `-j, --threads N`, as the help's left column shows it.
  var label: String {
    let names = self.names.joined(separator: ", ")
    guard let value else { return names }
    return names.isEmpty ? value : names + " " + value
  }

  /// The help text with the default, as the help's right column shows it.
  var fullHelp: String { defaultValue.map { "\(help) (default: \($0))" } ?? help }
}

/// Options shown together under a title in a command's help.
struct OptionGroup {
  var title: String
  var options: [OptionSpec]
}

/// A command: its name, what it does, how it is called and every option it reads.
struct CommandSpec {
  var name: String
  /// One line, lower case, for the list of commands: `apply a chain to image files`.
  var abstract: String
  /// What follows `fxc NAME` on each usage line: `--chain CHAIN [--passes]`.
  var usage: [String]
  /// Paragraphs after the usage, separated by blank lines; a line that starts with
  /// two spaces is kept as it is (an example), the rest is wrapped.
  var discussion: String
  var groups: [OptionGroup]

  /// `-h, --help`, which every command takes.
  static let helpOption = OptionSpec.flag("-h", "--help", help: "print this help")

  init(name: String, abstract: String, usage: [String], discussion: String = "", groups: [OptionGroup]) {
    self.name = name
    self.abstract = abstract
    self.usage = usage
    self.discussion = discussion
    self.groups = groups
  }

  /// A command whose options need no titles: one group, `options`.
  init(name: String, abstract: String, usage: [String], discussion: String = "", options: [OptionSpec]) {
    self.init(name: name, abstract: abstract, usage: usage, discussion: discussion, groups: [OptionGroup(title: "options", options: options)])
  }

  /// Every option the command reads, in the order declared, `-h, --help` last.
  var options: [OptionSpec] {
    groups.flatMap(\.options).filter { $0.kind != .positional } + [Self.helpOption]
  }

  /// The declared option one of whose names is `name`.
  func option(named name: String) -> OptionSpec? {
    options.first { $0.names.contains(name) }
  }

  /// `fxc run --help`: the usage, the discussion and every option, wrapped to `width` columns.
  func help(width: Int = 100) -> String {
    var lines = ["fxc \(name): \(abstract)", ""]
    for (i, line) in usage.enumerated() {
      lines.append((i == 0 ? "usage: " : "       ") + (["fxc", name] + (line.isEmpty ? [] : [line])).joined(separator: " "))
    }
    if !discussion.isEmpty { lines += [""] + HelpText.paragraphs(discussion, width: width) }
    var groups = self.groups
    if groups.isEmpty { groups = [OptionGroup(title: "options", options: [])] }
    groups[groups.count - 1].options.append(Self.helpOption)
    let entries = groups.flatMap(\.options)
    let column = min(entries.map(\.label.count).max() ?? 0, 24) + 4
    for group in groups {
      lines += ["", group.title + ":"]
      for option in group.options {
        lines += HelpText.entry(option.label, option.fullHelp, column: column, width: width)
      }
    }
    return lines.joined(separator: "\n")
  }
}

/// Wrapping for help texts.
enum HelpText {
  /// `text` in lines of at most `width` columns (a longer word stays whole), each after `indent` spaces.
  static func wrap(_ text: String, width: Int, indent: Int = 0) -> [String] {
    var lines: [String] = [], line = ""
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      if !line.isEmpty, indent + line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(line) }
    let pad = String(repeating: " ", count: indent)
    return lines.map { pad + $0 }
  }

  /// Paragraphs separated by blank lines, wrapped; lines that start with two spaces are kept as they are.
  static func paragraphs(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    for paragraph in text.components(separatedBy: "\n\n") {
      if !lines.isEmpty { lines.append("") }
      var prose = ""
      for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("  ") {
          lines += wrap(prose, width: width)
          prose = ""
          lines.append(String(line))
        } else {
          prose += (prose.isEmpty ? "" : " ") + line
        }
      }
      lines += wrap(prose, width: width)
    }
    return lines
  }

  /// `  LABEL   help…` with the help from `column` on, wrapped; after a longer label, on the next line.
  static func entry(_ label: String, _ help: String, column: Int, width: Int) -> [String] {
    var lines = wrap(help, width: width, indent: column)
    let head = "  " + label
    if head.count + 2 <= column, !lines.isEmpty {
      lines[0] = head + String(lines[0].dropFirst(head.count))
    } else {
      lines.insert(head, at: 0)
    }
    return lines
  }
}
