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
# Words, sections and the built-in rules: a file is read before them unless it says
# '!defaults off'; an unknown directive is a bad line.
printf '!section mine\nweights func~load_weights\n!section\ndata py~batch\n' > words.rules
vramtrace rules --check words.rules
echo "exit $?"
printf '# alone\n!defaults off\nweights func~load_weights\n' > alone.rules
vramtrace rules --check alone.rules
echo "exit $?"
printf 'weights func~load\n!default off\n' > bad-directive.rules
vramtrace rules --check bad-directive.rules
echo "exit $?"
printf 'weights func~__\n' > no-words.rules
vramtrace rules --check no-words.rules
echo "exit $?"
