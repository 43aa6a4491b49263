import ArgumentParser

/// `--json`, one flag for every command that prints what a script reads;
/// docs/json.md gives each command's fields.
struct OutputFormat: ParsableArguments {
    @Flag(help: "Print JSON instead of text (each command's fields: docs/json.md).")
    var json = false
}
