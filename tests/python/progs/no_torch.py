# A Python program that never imports torch: prints, reads stdin, exits with status 3.
import sys
print("hello from a program without torch")
print("argv:", sys.argv[1:])
sys.stderr.write("to stderr\n")
sys.exit(3)
