"""The file to hand `spark-submit`: it runs `foreman_cli.spark`'s job (a module of a package cannot be run as a file)."""

if __name__ == "__main__":
    import sys

    from foreman_cli.spark import main

    sys.exit(main())
