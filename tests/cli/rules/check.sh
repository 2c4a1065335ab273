# A good file, then each kind of bad line, named with its line number.
printf 'weights func:*weight*\n# comment\n\ndata py:*train.py:load*\n' > good.rules
vramtrace rules --check good.rules
echo "exit $?"
printf 'weights func:a\nweight func:a\n' > bad-category.rules
vramtrace rules --check bad-category.rules
echo "exit $?"
printf 'data function:x\n' > bad-field.rules
vramtrace rules --check bad-field.rules
echo "exit $?"
printf 'data func:\n' > empty-glob.rules
vramtrace rules --check empty-glob.rules
echo "exit $?"
vramtrace rules --check no-such.rules
echo "exit $?"
