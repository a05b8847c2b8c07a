"""Entry points: the command line, the web site and the file formats, above both sides."""
