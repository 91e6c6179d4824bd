// The platform edit page: each "New source" shows only the inputs of the kind of source chosen (all of them when
// scripts do not run, each labelled with its kind).
document.querySelectorAll(".new-source").forEach((box) => {
  const kind = box.querySelector("select");
  if (!kind) return;
  const show = () => {
    box.querySelectorAll("label[data-kind]").forEach((label) => {
      label.hidden = label.dataset.kind !== kind.value;
    });
  };
  kind.addEventListener("change", show);
  show();
});
