use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "Examples:
  stampede                                   a herd of horses in a window
  stampede --model bird --count 5000         a flock of birds
  stampede --model horse:3000                3000 horses (a count after the model)
  stampede inspect ../shared/models/Fox.glb  what a glTF file contains, and its LOD chain
  stampede inspect horse --lod-strategy both compare the two LOD strategies
  stampede bake horse --out vat/horse        export the VAT (EXR + vat.json)
  stampede make-assets                       regenerate assets/horse.glb and assets/bird.glb
  stampede bench --counts 100,1000 --json b.json  every technique, offscreen, with ratios";

/// A real-time crowd renderer: vertex animation textures baked from skinned glTF.
#[derive(Parser)]
#[command(name = "stampede", version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    viewer: stampede::app::ViewerArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print what a glTF file contains: meshes, vertices, joints, clips, warnings.
    Inspect(stampede::cli::InspectArgs),
    /// Bake a model's clips and export the VAT as EXR textures plus vat.json.
    Bake(stampede::cli::BakeArgs),
    /// Benchmark every technique across instance counts, offscreen (or the bake with --bake).
    #[command(after_help = stampede::bench::args::EXAMPLES)]
    Bench(stampede::bench::BenchArgs),
    /// Regenerate the project's own horse and bird models.
    MakeAssets {
        /// Output folder.
        #[arg(long, default_value = "assets")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    stampede::init_logging();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Inspect(args)) => stampede::cli::inspect(&args),
        Some(Command::Bake(args)) => stampede::cli::bake(&args),
        Some(Command::Bench(args)) => stampede::bench::run(&args).map_err(Into::into),
        Some(Command::MakeAssets { out }) => stampede::cli::make_assets(&out),
        None => stampede::app::run(cli.viewer),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", stampede::cli::describe_error(&e));
            ExitCode::FAILURE
        }
    }
}
